# Empty dependencies file for fastboot_sim.
# This may be replaced when dependencies are built.
