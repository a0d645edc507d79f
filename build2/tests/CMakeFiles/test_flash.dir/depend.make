# Empty dependencies file for test_flash.
# This may be replaced when dependencies are built.
