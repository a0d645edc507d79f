file(REMOVE_RECURSE
  "CMakeFiles/probe_sim.dir/probe_sim.c.o"
  "CMakeFiles/probe_sim.dir/probe_sim.c.o.d"
  "probe_sim"
  "probe_sim.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/probe_sim.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
