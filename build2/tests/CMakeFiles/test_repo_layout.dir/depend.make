# Empty dependencies file for test_repo_layout.
# This may be replaced when dependencies are built.
