# Empty compiler generated dependencies file for test_qemu.
# This may be replaced when dependencies are built.
