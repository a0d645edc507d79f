file(REMOVE_RECURSE
  "CMakeFiles/test_changepoint.dir/unit/test_changepoint.c.o"
  "CMakeFiles/test_changepoint.dir/unit/test_changepoint.c.o.d"
  "test_changepoint"
  "test_changepoint.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_changepoint.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
