file(REMOVE_RECURSE
  "CMakeFiles/test_bootimg.dir/unit/test_bootimg.c.o"
  "CMakeFiles/test_bootimg.dir/unit/test_bootimg.c.o.d"
  "test_bootimg"
  "test_bootimg.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_bootimg.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
