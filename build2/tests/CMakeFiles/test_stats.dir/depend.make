# Empty dependencies file for test_stats.
# This may be replaced when dependencies are built.
