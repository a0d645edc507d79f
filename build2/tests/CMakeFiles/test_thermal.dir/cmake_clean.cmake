file(REMOVE_RECURSE
  "CMakeFiles/test_thermal.dir/unit/test_thermal.c.o"
  "CMakeFiles/test_thermal.dir/unit/test_thermal.c.o.d"
  "test_thermal"
  "test_thermal.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_thermal.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
