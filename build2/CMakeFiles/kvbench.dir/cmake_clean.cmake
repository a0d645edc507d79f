file(REMOVE_RECURSE
  "CMakeFiles/kvbench.dir/commit_embed.c.o"
  "CMakeFiles/kvbench.dir/commit_embed.c.o.d"
  "CMakeFiles/kvbench.dir/src/main.c.o"
  "CMakeFiles/kvbench.dir/src/main.c.o.d"
  "kvbench"
  "kvbench.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/kvbench.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
