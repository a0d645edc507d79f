# Empty compiler generated dependencies file for test_jankbench_db.
# This may be replaced when dependencies are built.
