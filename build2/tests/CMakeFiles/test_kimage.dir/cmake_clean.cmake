file(REMOVE_RECURSE
  "CMakeFiles/test_kimage.dir/unit/test_kimage.c.o"
  "CMakeFiles/test_kimage.dir/unit/test_kimage.c.o.d"
  "test_kimage"
  "test_kimage.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_kimage.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
