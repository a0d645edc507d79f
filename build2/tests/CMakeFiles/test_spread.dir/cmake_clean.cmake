file(REMOVE_RECURSE
  "CMakeFiles/test_spread.dir/unit/test_spread.c.o"
  "CMakeFiles/test_spread.dir/unit/test_spread.c.o.d"
  "test_spread"
  "test_spread.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_spread.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
