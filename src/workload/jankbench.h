/*
 * The Jankbench workload (jankbench.c): Android UI frame times from the
 * com.android.benchmark app on an adb target. Public pieces for tests and
 * fuzzers; the workload itself is kvb_workload_jankbench in kvb_workloads[].
 */
#ifndef KVB_JANKBENCH_H
#define KVB_JANKBENCH_H

#include "config/keys.h"

/*
 * The app's test ids, index = the number passed in
 * com.android.benchmark.EXTRA_ENABLED_BENCHMARK_IDS (notes/formats.md):
 * 0 list_view, 1 image_list_view, 2 shadow_grid, 3 low_hitrate_text,
 * 4 high_hitrate_text, 5 edit_text, 6 overdraw_test. NULL-terminated.
 */
extern const char *const kvb_jankbench_tests[];

/* Id of a test given by name or by number ("2", 2); -1 when unknown. */
int kvb_jankbench_test_id(const cJSON *v);

/*
 * Extra parameter checks (ops->validate): every test_ids entry is a known
 * name or id, `test` and `test_ids` are not both given, no test is named
 * twice. Errors go to d at the key path (e.g. "workloads[0].params.test_ids[1]").
 * Returns the number of errors.
 */
int kvb_jankbench_validate(const cJSON *params, const char *path, struct kvb_diag *d);

/*
 * Reads `dumpsys activity activities` output: 1 when a resumed-activity line
 * (mResumedActivity, topResumedActivity, ResumedActivity) names an activity
 * of package pkg ("pkg/"), 0 when such lines exist but none does, -1 when
 * the output has no such line (format unknown: nothing can be concluded).
 */
int kvb_jankbench_foreground(const char *dumpsys, const char *pkg);

/* The app's data directory from `dumpsys package PKG` output ("dataDir=DIR" line), or NULL. Owned. */
char *kvb_jankbench_data_dir(const char *dumpsys);

#endif
