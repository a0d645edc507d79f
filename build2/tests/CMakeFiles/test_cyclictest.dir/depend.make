# Empty dependencies file for test_cyclictest.
# This may be replaced when dependencies are built.
