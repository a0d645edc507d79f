file(REMOVE_RECURSE
  "CMakeFiles/adbd_sim.dir/adbd_sim.c.o"
  "CMakeFiles/adbd_sim.dir/adbd_sim.c.o.d"
  "adbd_sim"
  "adbd_sim.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/adbd_sim.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
