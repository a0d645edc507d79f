# Integration tests (label integration): real tools, real servers on loopback.
kvb_test(test_adb ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_adb.c integration 110)
