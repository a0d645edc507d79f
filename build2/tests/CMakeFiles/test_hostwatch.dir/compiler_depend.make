# Empty compiler generated dependencies file for test_hostwatch.
# This may be replaced when dependencies are built.
