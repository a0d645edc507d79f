# Empty dependencies file for test_verdict.
# This may be replaced when dependencies are built.
