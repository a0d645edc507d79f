# Empty compiler generated dependencies file for test_changepoint.
# This may be replaced when dependencies are built.
