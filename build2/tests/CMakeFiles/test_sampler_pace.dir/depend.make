# Empty dependencies file for test_sampler_pace.
# This may be replaced when dependencies are built.
