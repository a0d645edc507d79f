# Empty compiler generated dependencies file for adbd_sim.
# This may be replaced when dependencies are built.
