# The installed CMake package (find_package(locksim CONFIG)) and the Debian
# package (cpack -G DEB in the build folder). The libraries install themselves
# through locksim_package_library; this file adds what they share.
include(CMakePackageConfigHelpers)

install(TARGETS locksim_warnings EXPORT locksim-base-targets)
install(EXPORT locksim-base-targets NAMESPACE locksim:: DESTINATION ${LOCKSIM_CMAKE_DIR})

get_property(LOCKSIM_INSTALLED_COMPONENTS GLOBAL PROPERTY LOCKSIM_COMPONENTS)
configure_package_config_file(cmake/locksimConfig.cmake.in ${PROJECT_BINARY_DIR}/locksimConfig.cmake
                              INSTALL_DESTINATION ${LOCKSIM_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/locksimConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/locksimConfig.cmake ${PROJECT_BINARY_DIR}/locksimConfigVersion.cmake
              cmake/LocksimRegressionTests.cmake
        DESTINATION ${LOCKSIM_CMAKE_DIR})

set(CPACK_PACKAGE_NAME locksim)
set(CPACK_PACKAGE_VENDOR "locksim")
set(CPACK_PACKAGE_CONTACT "locksim developers <locksim@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# Run-time and build-time needs of what the package holds (static libraries,
# headers, the program): the same Debian packages the project builds with.
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "libfmt-dev, liblua5.1-0-dev, librapidcheck-dev, libcli11-dev, catch2, pkg-config, libhiredis-dev, libevent-dev")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
set(CPACK_STRIP_FILES ON)
include(CPack)

# A lean package: the installed archives and program carry no debug sections.
# A RelWithDebInfo build's -g made the prefix 417 MB and every consumer's link
# read it all (30 s to 3 min a test on two cores); a consumer links machine
# code and symbols only. Runs last: CMP0082 orders this after the
# subdirectories' install rules. LOCKSIM_INSTALL_DEBUG_INFO=ON keeps them.
option(LOCKSIM_INSTALL_DEBUG_INFO "keep debug information in the installed libraries and program" OFF)
if(NOT LOCKSIM_INSTALL_DEBUG_INFO AND CMAKE_STRIP)
  install(CODE "
    set(_root \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}\")
    file(GLOB _archives \"\${_root}/${CMAKE_INSTALL_LIBDIR}/liblocksim_*.a\")
    foreach(_file IN LISTS _archives)
      execute_process(COMMAND \"${CMAKE_STRIP}\" --strip-debug \"\${_file}\" COMMAND_ERROR_IS_FATAL ANY)
    endforeach()
    if(EXISTS \"\${_root}/${CMAKE_INSTALL_BINDIR}/locksim\")
      execute_process(COMMAND \"${CMAKE_STRIP}\" --strip-all \"\${_root}/${CMAKE_INSTALL_BINDIR}/locksim\"
                      COMMAND_ERROR_IS_FATAL ANY)
    endif()
    message(STATUS \"Stripped debug information from the installed libraries and program\")
  ")
endif()
