file(REMOVE_RECURSE
  "CMakeFiles/test_jankbench_db.dir/unit/test_jankbench_db.c.o"
  "CMakeFiles/test_jankbench_db.dir/unit/test_jankbench_db.c.o.d"
  "test_jankbench_db"
  "test_jankbench_db.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_jankbench_db.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
