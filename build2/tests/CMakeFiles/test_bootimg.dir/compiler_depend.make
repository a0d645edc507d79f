# Empty compiler generated dependencies file for test_bootimg.
# This may be replaced when dependencies are built.
