# Empty dependencies file for test_adb_platform.
# This may be replaced when dependencies are built.
