# Empty compiler generated dependencies file for kvb_sim_net.
# This may be replaced when dependencies are built.
