# Empty dependencies file for test_kmsg.
# This may be replaced when dependencies are built.
