file(REMOVE_RECURSE
  "CMakeFiles/test_hostwatch.dir/unit/test_hostwatch.c.o"
  "CMakeFiles/test_hostwatch.dir/unit/test_hostwatch.c.o.d"
  "test_hostwatch"
  "test_hostwatch.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_hostwatch.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
