# Empty dependencies file for test_tail.
# This may be replaced when dependencies are built.
