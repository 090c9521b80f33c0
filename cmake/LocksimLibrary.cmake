# locksim_package_library(TARGET EXPORT_NAME COMPONENT [HEADER_DIRS dir...])
# Makes one of locksim's static libraries installable as locksim::<EXPORT_NAME>:
#  - includes: the build tree's include/ (where include/locksim points at the
#    source root, so "locksim/sim/world.hpp" works in-tree as installed) and,
#    installed, <prefix>/include;
#  - its headers (the *.hpp of HEADER_DIRS, relative to the source root, not
#    recursive) installed under include/locksim/<dir>/;
#  - the target in the export set of its component, so a consumer of
#    locksim::redis alone needs only that component's dependencies.
function(locksim_package_library target export_name component)
  cmake_parse_arguments(L "" "" "HEADER_DIRS" ${ARGN})
  add_library(locksim::${export_name} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${export_name})
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  if(NOT LOCKSIM_INSTALL)
    return()
  endif()
  foreach(dir IN LISTS L_HEADER_DIRS)
    file(GLOB headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${dir}/*.hpp)
    install(FILES ${headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/locksim/${dir} COMPONENT ${component})
  endforeach()
  install(TARGETS ${target} EXPORT locksim-${export_name}-targets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT ${component})
  install(EXPORT locksim-${export_name}-targets NAMESPACE locksim::
          DESTINATION ${LOCKSIM_CMAKE_DIR} COMPONENT ${component})
  set_property(GLOBAL APPEND PROPERTY LOCKSIM_COMPONENTS ${export_name})
endfunction()
