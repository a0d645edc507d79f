# Empty compiler generated dependencies file for test_adb.
# This may be replaced when dependencies are built.
