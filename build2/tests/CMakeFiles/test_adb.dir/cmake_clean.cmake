file(REMOVE_RECURSE
  "CMakeFiles/test_adb.dir/integration/test_adb.c.o"
  "CMakeFiles/test_adb.dir/integration/test_adb.c.o.d"
  "test_adb"
  "test_adb.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_adb.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
