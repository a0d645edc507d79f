# Empty dependencies file for test_coverage.
# This may be replaced when dependencies are built.
