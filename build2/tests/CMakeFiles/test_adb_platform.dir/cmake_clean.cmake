file(REMOVE_RECURSE
  "CMakeFiles/test_adb_platform.dir/unit/test_adb_platform.c.o"
  "CMakeFiles/test_adb_platform.dir/unit/test_adb_platform.c.o.d"
  "test_adb_platform"
  "test_adb_platform.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_adb_platform.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
