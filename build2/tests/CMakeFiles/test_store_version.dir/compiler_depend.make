# Empty compiler generated dependencies file for test_store_version.
# This may be replaced when dependencies are built.
