# Empty compiler generated dependencies file for test_agenda.
# This may be replaced when dependencies are built.
