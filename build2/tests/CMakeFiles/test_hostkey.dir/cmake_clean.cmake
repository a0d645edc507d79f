file(REMOVE_RECURSE
  "CMakeFiles/test_hostkey.dir/integration/test_hostkey.c.o"
  "CMakeFiles/test_hostkey.dir/integration/test_hostkey.c.o.d"
  "test_hostkey"
  "test_hostkey.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_hostkey.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
