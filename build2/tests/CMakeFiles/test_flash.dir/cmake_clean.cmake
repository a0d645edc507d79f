file(REMOVE_RECURSE
  "CMakeFiles/test_flash.dir/integration/test_flash.c.o"
  "CMakeFiles/test_flash.dir/integration/test_flash.c.o.d"
  "test_flash"
  "test_flash.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_flash.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
