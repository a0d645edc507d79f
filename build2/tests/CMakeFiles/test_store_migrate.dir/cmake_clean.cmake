file(REMOVE_RECURSE
  "CMakeFiles/test_store_migrate.dir/unit/test_store_migrate.c.o"
  "CMakeFiles/test_store_migrate.dir/unit/test_store_migrate.c.o.d"
  "test_store_migrate"
  "test_store_migrate.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_store_migrate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
