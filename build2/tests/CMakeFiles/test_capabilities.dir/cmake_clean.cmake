file(REMOVE_RECURSE
  "CMakeFiles/test_capabilities.dir/unit/test_capabilities.c.o"
  "CMakeFiles/test_capabilities.dir/unit/test_capabilities.c.o.d"
  "test_capabilities"
  "test_capabilities.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_capabilities.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
