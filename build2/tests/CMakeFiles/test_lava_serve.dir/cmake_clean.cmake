file(REMOVE_RECURSE
  "CMakeFiles/test_lava_serve.dir/unit/test_lava_serve.c.o"
  "CMakeFiles/test_lava_serve.dir/unit/test_lava_serve.c.o.d"
  "test_lava_serve"
  "test_lava_serve.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_lava_serve.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
