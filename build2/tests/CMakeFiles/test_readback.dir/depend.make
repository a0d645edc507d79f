# Empty dependencies file for test_readback.
# This may be replaced when dependencies are built.
