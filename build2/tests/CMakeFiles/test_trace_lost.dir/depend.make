# Empty dependencies file for test_trace_lost.
# This may be replaced when dependencies are built.
