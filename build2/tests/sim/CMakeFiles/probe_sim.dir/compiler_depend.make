# Empty compiler generated dependencies file for probe_sim.
# This may be replaced when dependencies are built.
