# Empty dependencies file for test_lava.
# This may be replaced when dependencies are built.
