# ctest entries (label fuzz) for the libFuzzer targets: fuzz_build compiles them with clang in
# build/fuzz (skipped when clang or libFuzzer is missing), then each fuzz_<name> runs for
# KVB_FUZZ_SECONDS from its seed corpus. Longer campaigns: tests/fuzz/run.sh NAME SECONDS.
set(KVB_FUZZ_SECONDS 10 CACHE STRING "seconds each fuzzer runs under ctest")
set(_fuzz_env "KVB_BUILD_DIR=${CMAKE_BINARY_DIR};KVB_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
add_test(NAME fuzz_build COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/run.sh build)
set_tests_properties(fuzz_build PROPERTIES LABELS fuzz TIMEOUT 1800 SKIP_RETURN_CODE 77
  FIXTURES_SETUP kvb_fuzzers ENVIRONMENT "${_fuzz_env}")
file(GLOB _fuzzers CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/fuzz_*.c)
foreach(src ${_fuzzers})
  get_filename_component(n ${src} NAME_WE)
  string(REGEX REPLACE "^fuzz_" "" t ${n})
  add_test(NAME ${n} COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/run.sh ${t} ${KVB_FUZZ_SECONDS})
  set_tests_properties(${n} PROPERTIES LABELS fuzz TIMEOUT 300 SKIP_RETURN_CODE 77
    FIXTURES_REQUIRED kvb_fuzzers ENVIRONMENT "${_fuzz_env}")
endforeach()
