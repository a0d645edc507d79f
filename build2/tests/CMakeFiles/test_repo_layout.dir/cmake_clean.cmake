file(REMOVE_RECURSE
  "CMakeFiles/test_repo_layout.dir/unit/test_repo_layout.c.o"
  "CMakeFiles/test_repo_layout.dir/unit/test_repo_layout.c.o.d"
  "test_repo_layout"
  "test_repo_layout.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_repo_layout.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
