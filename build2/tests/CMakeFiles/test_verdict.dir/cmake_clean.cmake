file(REMOVE_RECURSE
  "CMakeFiles/test_verdict.dir/unit/test_verdict.c.o"
  "CMakeFiles/test_verdict.dir/unit/test_verdict.c.o.d"
  "test_verdict"
  "test_verdict.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_verdict.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
