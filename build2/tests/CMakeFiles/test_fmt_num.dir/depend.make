# Empty dependencies file for test_fmt_num.
# This may be replaced when dependencies are built.
