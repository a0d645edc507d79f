file(REMOVE_RECURSE
  "CMakeFiles/test_paths_secrets.dir/unit/test_paths_secrets.c.o"
  "CMakeFiles/test_paths_secrets.dir/unit/test_paths_secrets.c.o.d"
  "test_paths_secrets"
  "test_paths_secrets.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_paths_secrets.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
