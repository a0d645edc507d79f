# Empty compiler generated dependencies file for test_pyjson.
# This may be replaced when dependencies are built.
