file(REMOVE_RECURSE
  "CMakeFiles/test_store_open.dir/unit/test_store_open.c.o"
  "CMakeFiles/test_store_open.dir/unit/test_store_open.c.o.d"
  "test_store_open"
  "test_store_open.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_store_open.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
