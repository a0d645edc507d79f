# Empty compiler generated dependencies file for test_cpulist.
# This may be replaced when dependencies are built.
