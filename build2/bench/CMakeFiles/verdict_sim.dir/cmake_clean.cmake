file(REMOVE_RECURSE
  "CMakeFiles/verdict_sim.dir/verdict_sim.c.o"
  "CMakeFiles/verdict_sim.dir/verdict_sim.c.o.d"
  "verdict_sim"
  "verdict_sim.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/verdict_sim.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
