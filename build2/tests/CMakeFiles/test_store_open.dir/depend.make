# Empty dependencies file for test_store_open.
# This may be replaced when dependencies are built.
