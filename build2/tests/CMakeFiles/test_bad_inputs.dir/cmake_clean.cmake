file(REMOVE_RECURSE
  "CMakeFiles/test_bad_inputs.dir/unit/test_bad_inputs.c.o"
  "CMakeFiles/test_bad_inputs.dir/unit/test_bad_inputs.c.o.d"
  "test_bad_inputs"
  "test_bad_inputs.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_bad_inputs.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
