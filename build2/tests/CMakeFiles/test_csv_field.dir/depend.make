# Empty dependencies file for test_csv_field.
# This may be replaced when dependencies are built.
