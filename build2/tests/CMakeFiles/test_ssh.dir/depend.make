# Empty dependencies file for test_ssh.
# This may be replaced when dependencies are built.
