file(REMOVE_RECURSE
  "CMakeFiles/test_tail.dir/unit/test_tail.c.o"
  "CMakeFiles/test_tail.dir/unit/test_tail.c.o.d"
  "test_tail"
  "test_tail.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_tail.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
