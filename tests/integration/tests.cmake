# Integration tests (label integration): real tools, real files.
kvb_test(test_rt_app_local integration/test_rt_app_local.c integration 120)
