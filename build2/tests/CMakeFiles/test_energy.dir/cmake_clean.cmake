file(REMOVE_RECURSE
  "CMakeFiles/test_energy.dir/unit/test_energy.c.o"
  "CMakeFiles/test_energy.dir/unit/test_energy.c.o.d"
  "test_energy"
  "test_energy.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_energy.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
