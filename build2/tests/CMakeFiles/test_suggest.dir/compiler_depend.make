# Empty compiler generated dependencies file for test_suggest.
# This may be replaced when dependencies are built.
