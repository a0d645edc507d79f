# Empty dependencies file for test_hostkey.
# This may be replaced when dependencies are built.
