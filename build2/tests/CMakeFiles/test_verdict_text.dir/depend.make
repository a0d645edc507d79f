# Empty dependencies file for test_verdict_text.
# This may be replaced when dependencies are built.
