# Empty compiler generated dependencies file for test_thermal.
# This may be replaced when dependencies are built.
