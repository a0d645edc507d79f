# Empty dependencies file for verdict_sim.
# This may be replaced when dependencies are built.
