file(REMOVE_RECURSE
  "CMakeFiles/cpufreq_sim.dir/cpufreq_sim.c.o"
  "CMakeFiles/cpufreq_sim.dir/cpufreq_sim.c.o.d"
  "cpufreq_sim"
  "cpufreq_sim.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/cpufreq_sim.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
