# Empty dependencies file for test_kbuild_spec.
# This may be replaced when dependencies are built.
