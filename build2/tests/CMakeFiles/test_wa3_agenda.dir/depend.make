# Empty dependencies file for test_wa3_agenda.
# This may be replaced when dependencies are built.
