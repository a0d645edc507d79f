file(REMOVE_RECURSE
  "CMakeFiles/test_sampler_pace.dir/unit/test_sampler_pace.c.o"
  "CMakeFiles/test_sampler_pace.dir/unit/test_sampler_pace.c.o.d"
  "test_sampler_pace"
  "test_sampler_pace.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_sampler_pace.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
