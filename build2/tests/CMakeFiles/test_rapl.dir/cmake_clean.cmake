file(REMOVE_RECURSE
  "CMakeFiles/test_rapl.dir/unit/test_rapl.c.o"
  "CMakeFiles/test_rapl.dir/unit/test_rapl.c.o.d"
  "test_rapl"
  "test_rapl.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_rapl.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
