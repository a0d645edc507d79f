# Empty dependencies file for test_paths_secrets.
# This may be replaced when dependencies are built.
