file(REMOVE_RECURSE
  "CMakeFiles/test_store_version.dir/unit/test_store_version.c.o"
  "CMakeFiles/test_store_version.dir/unit/test_store_version.c.o.d"
  "test_store_version"
  "test_store_version.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_store_version.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
