# Empty compiler generated dependencies file for test_rt_app.
# This may be replaced when dependencies are built.
