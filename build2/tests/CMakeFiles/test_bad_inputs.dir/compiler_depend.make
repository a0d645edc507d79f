# Empty compiler generated dependencies file for test_bad_inputs.
# This may be replaced when dependencies are built.
