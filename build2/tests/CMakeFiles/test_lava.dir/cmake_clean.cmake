file(REMOVE_RECURSE
  "CMakeFiles/test_lava.dir/unit/test_lava.c.o"
  "CMakeFiles/test_lava.dir/unit/test_lava.c.o.d"
  "test_lava"
  "test_lava.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_lava.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
