# Integration tests: real tools, real servers, real SQLite files, the real kvbench binary.
kvb_script_test(it_quickstart integration/quickstart.sh integration 300)
kvb_script_test(it_bad_agendas integration/bad_agendas.sh integration 120)
kvb_script_test(it_resume integration/resume.sh integration 300)
kvb_script_test(it_resume_boots integration/resume_boots.sh integration 300)
kvb_script_test(it_knobs integration/knobs.sh integration 120)
kvb_script_test(it_cyclictest_local integration/cyclictest_local.sh integration 180)
kvb_script_test(it_verdict integration/verdict.sh integration 120)
kvb_script_test(it_exact_data integration/exact_data.sh integration 120)
kvb_script_test(it_import_csv integration/import_csv.sh integration 120)
kvb_script_test(it_import_wa3 integration/import_wa3.sh integration 120)
kvb_script_test(it_import_missing integration/import_missing.sh integration 120)
kvb_script_test(it_wa3_inputs integration/wa3_inputs.sh integration 120)
kvb_script_test(it_grouping integration/grouping.sh integration 300)
kvb_script_test(it_checks integration/checks.sh integration 120)
# issue 41 item 6: thread metric names, platform new from a named board, warm-ups counted alike.
kvb_script_test(it_first_day2 integration/first_day2.sh integration 120)
kvb_script_test(it_readme_examples integration/readme_examples.sh integration 300)
kvb_script_test(it_cleanup_paths integration/cleanup_paths.sh integration 120)
kvb_script_test(it_until_decided integration/until_decided.sh integration 300)
kvb_script_test(it_host_witness integration/host_witness.sh integration 600)
kvb_script_test(it_bisect_busy integration/bisect_busy.sh integration 900)
kvb_script_test(it_warmup integration/warmup.sh integration 300)
kvb_test(test_rt_app_local integration/test_rt_app_local.c integration 120)
kvb_test(test_write_refused integration/test_write_refused.c integration 60)

# The sshd fixture: a real OpenSSH server on loopback, for every test that needs an ssh board.
add_library(kvb_sshd_fixture STATIC ${CMAKE_CURRENT_LIST_DIR}/sshd_fixture.c)
target_link_libraries(kvb_sshd_fixture PUBLIC kvb)
target_include_directories(kvb_sshd_fixture PUBLIC ${CMAKE_CURRENT_LIST_DIR})

# about 110 s on a loaded 2-core machine: 20 tests, each with its own sshd
kvb_test(test_ssh ${CMAKE_CURRENT_LIST_DIR}/test_ssh.c integration 240)
target_link_libraries(test_ssh PRIVATE kvb_sshd_fixture)

# Energy and platform instruments: probe_sim (built by tests/sim) plays the meters, the local target runs them.
kvb_test(test_instruments ${CMAKE_CURRENT_LIST_DIR}/test_instruments.c integration 120)
add_dependencies(test_instruments probe_sim trace_cmd_sim)
target_link_libraries(test_instruments PRIVATE pthread)
kvb_script_test(it_energy integration/energy.sh integration 300)
kvb_script_test(it_rapl integration/rapl.sh integration 120)
kvb_script_test(it_quickstart_ssh integration/quickstart_ssh.sh integration 300)

# adb target against tests/sim/adbd_sim with the real adb client and a private adb server.
# kvb_adb_fixture: adbd_sim devices behind one private adb server (tests/integration/adb_fixture.h).
add_library(kvb_adb_fixture STATIC ${CMAKE_CURRENT_LIST_DIR}/adb_fixture.c)
target_link_libraries(kvb_adb_fixture PUBLIC kvb)
target_include_directories(kvb_adb_fixture PUBLIC ${CMAKE_CURRENT_LIST_DIR})
kvb_test(test_adb integration/test_adb.c integration 110)
add_dependencies(test_adb adbd_sim)
target_link_libraries(test_adb PRIVATE kvb_adb_fixture)
kvb_script_test(it_fetch integration/fetch.sh integration 180)
kvb_script_test(it_preflight integration/preflight.sh integration 120)
kvb_script_test(it_diff_truth integration/diff_truth.sh integration 120)
kvb_script_test(it_mailtable integration/mailtable.sh integration 60)
kvb_script_test(it_table_outputs integration/table_outputs.sh integration 120)
kvb_script_test(it_resume_repair integration/resume_repair.sh integration 120)
kvb_script_test(it_messages integration/messages.sh integration 60)
kvb_script_test(it_small_fixes integration/small_fixes.sh integration 60)
kvb_script_test(it_show_formats integration/show_formats.sh integration 60)
kvb_script_test(it_param_classifiers integration/param_classifiers.sh integration 120)
kvb_script_test(it_help_docs integration/help_docs.sh integration 60)
kvb_script_test(it_faults_ssh integration/faults_ssh.sh integration 240)

# Boots Debian kernels on the qemu-x86_64 board (label qemu): builds the board on
# first use (about 30 s), then about 5-10 s per boot under TCG.
kvb_test(test_qemu integration/test_qemu.c qemu 600)
# 150 s at load 2; 900 s was not enough once at load 38 (19 runnable tasks a core): the limit
# catches a hang, it is no speed target
kvb_script_test(it_qemu_ab integration/qemu_ab.sh qemu 1800)
kvb_script_test(it_cyclictest_qemu integration/cyclictest_qemu.sh qemu 600)
# The deterministic board (issue 27): one boot with an instruction clock, about 60-200 s.
kvb_script_test(it_qemu_icount integration/qemu_icount.sh qemu 900)
# The profile instrument on it (issue 39 item 3): two boots (a lossy ring buffer in the second), perf report in the guest.
kvb_script_test(it_qemu_profile integration/qemu_profile.sh qemu 2400)

# Jankbench workload against adbd_sim with a simulated com.android.benchmark app, and the
# agenda -> DB -> diff loop through the real kvbench binary.
kvb_test(test_jankbench integration/test_jankbench.c integration 115)
add_dependencies(test_jankbench adbd_sim kvbench)
target_link_libraries(test_jankbench PRIVATE kvb_adb_fixture)

# Flashers: fastboot (mkbootimg + Debian's fastboot against tests/sim/fastboot_sim, adbd_sim as the board).
kvb_script_test(it_flash_fastboot integration/flash_fastboot.sh integration 240)
kvb_test(test_flash ${CMAKE_CURRENT_LIST_DIR}/test_flash.c integration 110)
# The simulators' bytes against real captures and AOSP's transcripts (tests/fixtures/field/{adb,fastboot}).
kvb_script_test(it_sim_wire integration/sim_wire.sh integration 60)
target_link_libraries(test_flash PRIVATE kvb_sshd_fixture)

# harden: bad inputs, shell injection / paths / secrets, host keys, disk full and readers.
kvb_script_test(it_bad_inputs integration/bad_inputs.sh integration 120)
kvb_script_test(it_security integration/security.sh integration 240)
# No ssh connection key turns host key checking off (harden).
kvb_test(test_hostkey ${CMAKE_CURRENT_LIST_DIR}/test_hostkey.c integration 110)
target_link_libraries(test_hostkey PRIVATE kvb_sshd_fixture)
kvb_script_test(it_faults integration/faults.sh integration 240)
# cgroup_depth on Android's layout (cgroup2 without cpu + v1 cpu elsewhere), real cgroups in a mount namespace.
kvb_script_test(it_cgroups_android integration/cgroups_android.sh integration 180)
kvb_script_test(it_paths integration/paths.sh integration 120)
kvb_script_test(it_utf8 integration/utf8.sh integration 60)
kvb_script_test(it_taskset_old integration/taskset_old.sh integration 60)
kvb_script_test(it_cpufreq_ns integration/cpufreq_ns.sh integration 60)
kvb_script_test(it_cpufreq_root integration/cpufreq_root.sh integration 60)

# report: the format registry and `kvbench report` (text checks, bad input); the page in
# Debian's headless chromium has its own label (browser: about 1-2 min, a real rt-app run).
kvb_script_test(it_report integration/report.sh integration 300)
kvb_script_test(it_report_browser integration/report_browser.sh browser 1500)
# scripts/quickstart --android: the simulated HiKey960 + Jankbench + ACME probe demo and its page
kvb_script_test(it_quickstart_android integration/quickstart_android.sh browser 1500)
kvb_script_test(it_kbuild_inputs integration/kbuild_inputs.sh integration 180)
kvb_script_test(it_kbuild_variants integration/kbuild_variants.sh integration 180)
# a board built on first use shows its progress (issue 39 item 5)
kvb_script_test(it_board_progress integration/board_progress.sh integration 120)
# Kernels built from Debian's linux-source-6.1 (cold: one full tinyconfig build, then
# incremental steps) and bisected on the QEMU board: label kbuild-ci, in scripts/test.
# The series run and the swapped endpoints on the same kernels: label kbuild, on request.
kvb_script_test(it_kbuild_bisect integration/kbuild_bisect.sh kbuild-ci 3600)
kvb_script_test(it_kbuild_qemu integration/kbuild_qemu.sh kbuild 7200)
kvb_script_test(it_series_diff integration/series_diff.sh integration 120)

# Board pools (docs/design.md#pools-and-lava) over two real sshd boards on loopback, one killed mid-run.
kvb_script_test(it_pool_ssh integration/pool_ssh.sh integration 300)
# Duet runs (execution_order: duet) on two boards of this host, real hackbench, lockstep read back.
kvb_script_test(it_duet_local integration/duet_local.sh integration 900)

# kvbench through a real LAVA lab (scripts/lava-lab: lava-server 2023.01, PostgreSQL, one
# worker, two tagged qemu devices, hi960-hikey and juno-uboot devices in maintenance): LAVA's
# validation of the definitions, bad input, Ctrl-C, an infrastructure error resubmitted and a job
# error not, a broken pinned device whose unit goes to the other, SIGKILL and --resume
# reattaching, the quick-start agenda with its files served by kvbench over HTTP, its metrics in
# LAVA's results and a KCIDB export, lava-lab down. Slow: label lava.
kvb_script_test(it_lava_lab integration/lava_lab.sh lava 5400)
# LAVA's own validation (lava-run --validate) of the definitions kvbench writes for the device types
# qemu, hi960-hikey and juno-uboot: seconds, skipped without lava-dispatcher (scripts/setup --lava).
kvb_script_test(it_lava_validate integration/lava_validate.sh integration 300)
# KCIDB export validated against KCIDB's published schema (kernelci/kcidb-io) with python3-jsonschema.
kvb_script_test(it_export_kcidb integration/export_kcidb.sh integration 120)
set_tests_properties(it_export_kcidb PROPERTIES SKIP_RETURN_CODE 77)
set_tests_properties(it_lava_validate PROPERTIES SKIP_RETURN_CODE 77)
set_tests_properties(it_lava_lab PROPERTIES SKIP_RETURN_CODE 77)
kvb_script_test(it_status_evidence integration/status_evidence.sh integration 180)
kvb_script_test(it_signed_stats integration/signed_stats.sh integration 120)
kvb_script_test(it_outputs_safe integration/outputs_safe.sh integration 120)
# Every exit status `kvbench --help` documents, one case each; target errors exit 4 (issue 40).
kvb_script_test(it_exit_status integration/exit_status.sh integration 300)
# rt-app's calibration outside the instrument windows, pLoad re-checked each round (issue 25).
kvb_script_test(it_rtapp_calib integration/rtapp_calib.sh integration 300)

# Shipping (issue 31): cmake --install and the installed kvbench; the JSON outputs against their
# schema (results-schema/kvbench-json.schema.json) and the DB's version; pandas on a quick-start DB.
kvb_script_test(it_install integration/install.sh integration 600)
kvb_script_test(it_outputs integration/outputs.sh integration 600)
# The Debian package built, linted, installed into a fresh bookworm root and run there (label package:
# root, mmdebstrap; 17-21 min measured beside other builds, so on request: docs/tests.md).
kvb_script_test(it_package package/deb.sh package 3000)
kvb_script_test(it_knob_readback integration/knob_readback.sh integration 180)
kvb_script_test(it_thermal_witness integration/thermal_witness.sh integration 120)
kvb_script_test(it_cpufreq_offline integration/cpufreq_offline.sh integration 120)
kvb_script_test(it_counters integration/counters.sh integration 300)
kvb_script_test(it_schbench_local integration/schbench_local.sh integration 120)
kvb_script_test(it_cgroup_rt integration/cgroup_rt.sh integration 180)
kvb_script_test(it_interrupt integration/interrupt.sh integration 120)
# The uclamp thread reproduced (scripts/thread: four kernels built from linux-source-6.1, one run
# on the deterministic board): label thread, on request (ctest -L thread); hours when cold.
kvb_script_test(it_thread integration/thread.sh thread 10800)
# Its table from one stored complete run (tests/fixtures/thread): in CI.
kvb_script_test(it_thread_table integration/thread_table.sh integration 300)
# scripts/sim-board's kept boards (hikey960-sim, juno-sim): Ctrl-C and --resume, per-CPU util and cpufreq, ssh-copy, hwmon energy.
# label simboard: run on the release build only (like qemu): under ASan on a loaded host the simulated ACME
# probe was stopped before it had written its file (instrument-failed jobs)
kvb_script_test(it_sim_boards integration/sim_boards.sh simboard 900)

# kvbench's QEMU counting plugin under a real qemu-x86_64 (user mode): dumps around a loop of a
# known length, mapped by `nm` (docs/profile.md#counting-every-instruction); skipped without the
# plugin or qemu-user. tbcount_spin is the program it runs.
if(TARGET kvb-tbcount)
  add_executable(tbcount_spin ${CMAKE_CURRENT_LIST_DIR}/tbcount_spin.c)
  # static and uninstrumented: a program qemu-user runs, not kvbench code (ASan cannot link -static)
  set_property(TARGET tbcount_spin PROPERTY COMPILE_OPTIONS -Wall -Wextra -Werror)
  set_property(TARGET tbcount_spin PROPERTY LINK_OPTIONS -static)
  set_target_properties(tbcount_spin PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
endif()
kvb_test(test_tbcount ${CMAKE_CURRENT_LIST_DIR}/test_tbcount.c integration 180)
set_tests_properties(test_tbcount PROPERTIES SKIP_RETURN_CODE 77)
if(TARGET kvb-tbcount)
  add_dependencies(test_tbcount tbcount_spin kvb-tbcount)
endif()
