# Empty dependencies file for kvb_adb_fixture.
# This may be replaced when dependencies are built.
