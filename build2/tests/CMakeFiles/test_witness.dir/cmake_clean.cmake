file(REMOVE_RECURSE
  "CMakeFiles/test_witness.dir/unit/test_witness.c.o"
  "CMakeFiles/test_witness.dir/unit/test_witness.c.o.d"
  "test_witness"
  "test_witness.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_witness.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
