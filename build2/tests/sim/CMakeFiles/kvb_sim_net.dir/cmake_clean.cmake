file(REMOVE_RECURSE
  "CMakeFiles/kvb_sim_net.dir/sim_net.c.o"
  "CMakeFiles/kvb_sim_net.dir/sim_net.c.o.d"
  "libkvb_sim_net.a"
  "libkvb_sim_net.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/kvb_sim_net.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
