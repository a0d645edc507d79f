# Empty compiler generated dependencies file for test_store_migrate.
# This may be replaced when dependencies are built.
