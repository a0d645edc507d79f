file(REMOVE_RECURSE
  "CMakeFiles/test_boards.dir/unit/test_boards.c.o"
  "CMakeFiles/test_boards.dir/unit/test_boards.c.o.d"
  "test_boards"
  "test_boards.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_boards.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
