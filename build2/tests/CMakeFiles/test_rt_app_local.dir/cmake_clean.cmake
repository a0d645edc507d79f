file(REMOVE_RECURSE
  "CMakeFiles/test_rt_app_local.dir/integration/test_rt_app_local.c.o"
  "CMakeFiles/test_rt_app_local.dir/integration/test_rt_app_local.c.o.d"
  "test_rt_app_local"
  "test_rt_app_local.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_rt_app_local.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
