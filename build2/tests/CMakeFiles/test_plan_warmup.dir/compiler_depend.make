# Empty compiler generated dependencies file for test_plan_warmup.
# This may be replaced when dependencies are built.
