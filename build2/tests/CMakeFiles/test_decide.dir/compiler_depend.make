# Empty compiler generated dependencies file for test_decide.
# This may be replaced when dependencies are built.
