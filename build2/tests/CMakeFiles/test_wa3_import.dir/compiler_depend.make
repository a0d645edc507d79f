# Empty compiler generated dependencies file for test_wa3_import.
# This may be replaced when dependencies are built.
