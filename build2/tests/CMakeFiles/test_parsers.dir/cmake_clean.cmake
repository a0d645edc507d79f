file(REMOVE_RECURSE
  "CMakeFiles/test_parsers.dir/unit/test_parsers.c.o"
  "CMakeFiles/test_parsers.dir/unit/test_parsers.c.o.d"
  "test_parsers"
  "test_parsers.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_parsers.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
