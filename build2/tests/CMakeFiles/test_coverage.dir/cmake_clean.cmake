file(REMOVE_RECURSE
  "CMakeFiles/test_coverage.dir/unit/test_coverage.c.o"
  "CMakeFiles/test_coverage.dir/unit/test_coverage.c.o.d"
  "test_coverage"
  "test_coverage.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_coverage.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
