# locksim_add_regression_tests(PROGRAM FILE [PREFIX name])
# One CTest test per scenario line of a regression file ("violates PROPERTY:
# SCENARIO" or "holds PROPERTY: SCENARIO", # comments, blank lines), each run
# as `PROGRAM replay --line N FILE`, which exits 0 only when the line's
# expectation is kept. PROGRAM is `locksim::locksim`, the installed program, or
# your own executable target built on locksim::cli::main (with your locks
# registered). The file is re-read when it changes.
function(locksim_add_regression_tests program file)
  cmake_parse_arguments(R "" "PREFIX" "" ${ARGN})
  get_filename_component(path "${file}" ABSOLUTE)
  get_filename_component(name "${path}" NAME)
  if(NOT R_PREFIX)
    set(R_PREFIX "regression")
  endif()
  if(NOT EXISTS "${path}")
    message(FATAL_ERROR "locksim_add_regression_tests: no file '${path}'")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${path}")
  file(READ "${path}" text)
  # Keep every line one list element: CMake lists split on ';' and treat
  # brackets specially, and scenario lines hold both.
  string(REPLACE ";" "," text "${text}")
  string(REPLACE "[" "(" text "${text}")
  string(REPLACE "]" ")" text "${text}")
  string(REPLACE "\\" "/" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(number 0)
  foreach(line IN LISTS lines)
    math(EXPR number "${number} + 1")
    string(STRIP "${line}" line)
    if(line MATCHES "^(violates|holds) ")
      add_test(NAME "${R_PREFIX}: ${name}:${number}" COMMAND ${program} replay --line ${number} "${path}")
    endif()
  endforeach()
endfunction()
