file(REMOVE_RECURSE
  "CMakeFiles/test_suggest.dir/unit/test_suggest.c.o"
  "CMakeFiles/test_suggest.dir/unit/test_suggest.c.o.d"
  "test_suggest"
  "test_suggest.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_suggest.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
