# Empty compiler generated dependencies file for test_spread.
# This may be replaced when dependencies are built.
