# Empty dependencies file for test_witness.
# This may be replaced when dependencies are built.
