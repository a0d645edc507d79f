file(REMOVE_RECURSE
  "CMakeFiles/test_plan_warmup.dir/unit/test_plan_warmup.c.o"
  "CMakeFiles/test_plan_warmup.dir/unit/test_plan_warmup.c.o.d"
  "test_plan_warmup"
  "test_plan_warmup.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_plan_warmup.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
