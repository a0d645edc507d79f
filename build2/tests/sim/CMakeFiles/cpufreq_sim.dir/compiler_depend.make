# Empty compiler generated dependencies file for cpufreq_sim.
# This may be replaced when dependencies are built.
