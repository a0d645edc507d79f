file(REMOVE_RECURSE
  "CMakeFiles/test_store_status.dir/unit/test_store_status.c.o"
  "CMakeFiles/test_store_status.dir/unit/test_store_status.c.o.d"
  "test_store_status"
  "test_store_status.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_store_status.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
