# Empty custom commands generated dependencies file for kvb_commit.
# This may be replaced when dependencies are built.
