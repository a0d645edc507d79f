# Empty compiler generated dependencies file for test_boards.
# This may be replaced when dependencies are built.
