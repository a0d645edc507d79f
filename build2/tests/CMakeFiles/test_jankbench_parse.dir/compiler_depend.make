# Empty compiler generated dependencies file for test_jankbench_parse.
# This may be replaced when dependencies are built.
