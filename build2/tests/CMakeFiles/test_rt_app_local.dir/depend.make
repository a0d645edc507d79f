# Empty dependencies file for test_rt_app_local.
# This may be replaced when dependencies are built.
