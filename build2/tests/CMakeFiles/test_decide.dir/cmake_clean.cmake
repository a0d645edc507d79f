file(REMOVE_RECURSE
  "CMakeFiles/test_decide.dir/unit/test_decide.c.o"
  "CMakeFiles/test_decide.dir/unit/test_decide.c.o.d"
  "test_decide"
  "test_decide.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_decide.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
