# Empty dependencies file for test_capabilities.
# This may be replaced when dependencies are built.
