file(REMOVE_RECURSE
  "CMakeFiles/test_identity.dir/unit/test_identity.c.o"
  "CMakeFiles/test_identity.dir/unit/test_identity.c.o.d"
  "test_identity"
  "test_identity.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_identity.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
