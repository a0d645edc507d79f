# Empty dependencies file for kvb.
# This may be replaced when dependencies are built.
