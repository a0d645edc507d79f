file(REMOVE_RECURSE
  "CMakeFiles/test_kbuild_spec.dir/unit/test_kbuild_spec.c.o"
  "CMakeFiles/test_kbuild_spec.dir/unit/test_kbuild_spec.c.o.d"
  "test_kbuild_spec"
  "test_kbuild_spec.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_kbuild_spec.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
