file(REMOVE_RECURSE
  "CMakeFiles/test_readback.dir/unit/test_readback.c.o"
  "CMakeFiles/test_readback.dir/unit/test_readback.c.o.d"
  "test_readback"
  "test_readback.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_readback.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
