# Integration tests: real tools, real SQLite files, the real kvbench binary.
kvb_script_test(it_quickstart integration/quickstart.sh integration 300)
kvb_script_test(it_bad_agendas integration/bad_agendas.sh integration 120)
kvb_script_test(it_resume integration/resume.sh integration 300)
kvb_script_test(it_knobs integration/knobs.sh integration 120)
kvb_test(test_rt_app_local integration/test_rt_app_local.c integration 120)
# adb target against tests/sim/adbd_sim with the real adb client and a private adb server.
kvb_test(test_adb integration/test_adb.c integration 110)
add_dependencies(test_adb adbd_sim)
