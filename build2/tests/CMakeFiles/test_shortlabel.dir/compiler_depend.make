# Empty compiler generated dependencies file for test_shortlabel.
# This may be replaced when dependencies are built.
