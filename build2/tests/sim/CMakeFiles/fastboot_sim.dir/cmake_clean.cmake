file(REMOVE_RECURSE
  "CMakeFiles/fastboot_sim.dir/fastboot_sim.c.o"
  "CMakeFiles/fastboot_sim.dir/fastboot_sim.c.o.d"
  "fastboot_sim"
  "fastboot_sim.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/fastboot_sim.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
