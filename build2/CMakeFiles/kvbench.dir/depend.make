# Empty dependencies file for kvbench.
# This may be replaced when dependencies are built.
