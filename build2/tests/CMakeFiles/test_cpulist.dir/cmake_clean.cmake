file(REMOVE_RECURSE
  "CMakeFiles/test_cpulist.dir/unit/test_cpulist.c.o"
  "CMakeFiles/test_cpulist.dir/unit/test_cpulist.c.o.d"
  "test_cpulist"
  "test_cpulist.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_cpulist.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
