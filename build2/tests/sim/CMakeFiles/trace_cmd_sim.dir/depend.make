# Empty dependencies file for trace_cmd_sim.
# This may be replaced when dependencies are built.
