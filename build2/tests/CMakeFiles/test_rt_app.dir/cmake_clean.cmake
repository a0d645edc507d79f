file(REMOVE_RECURSE
  "CMakeFiles/test_rt_app.dir/unit/test_rt_app.c.o"
  "CMakeFiles/test_rt_app.dir/unit/test_rt_app.c.o.d"
  "test_rt_app"
  "test_rt_app.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_rt_app.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
