# Empty dependencies file for test_rapl.
# This may be replaced when dependencies are built.
