file(REMOVE_RECURSE
  "CMakeFiles/test_jankbench_parse.dir/unit/test_jankbench_parse.c.o"
  "CMakeFiles/test_jankbench_parse.dir/unit/test_jankbench_parse.c.o.d"
  "test_jankbench_parse"
  "test_jankbench_parse.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_jankbench_parse.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
