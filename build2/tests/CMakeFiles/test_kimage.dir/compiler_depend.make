# Empty compiler generated dependencies file for test_kimage.
# This may be replaced when dependencies are built.
