file(REMOVE_RECURSE
  "CMakeFiles/test_cyclictest.dir/unit/test_cyclictest.c.o"
  "CMakeFiles/test_cyclictest.dir/unit/test_cyclictest.c.o.d"
  "test_cyclictest"
  "test_cyclictest.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_cyclictest.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
