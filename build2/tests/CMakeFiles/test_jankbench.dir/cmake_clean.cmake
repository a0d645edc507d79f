file(REMOVE_RECURSE
  "CMakeFiles/test_jankbench.dir/integration/test_jankbench.c.o"
  "CMakeFiles/test_jankbench.dir/integration/test_jankbench.c.o.d"
  "test_jankbench"
  "test_jankbench.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_jankbench.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
