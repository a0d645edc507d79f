# Empty dependencies file for test_store_status.
# This may be replaced when dependencies are built.
