# Empty dependencies file for test_identity.
# This may be replaced when dependencies are built.
