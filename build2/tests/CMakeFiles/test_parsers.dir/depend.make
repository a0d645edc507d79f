# Empty dependencies file for test_parsers.
# This may be replaced when dependencies are built.
