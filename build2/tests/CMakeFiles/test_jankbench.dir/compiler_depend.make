# Empty compiler generated dependencies file for test_jankbench.
# This may be replaced when dependencies are built.
