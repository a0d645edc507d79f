/* Tests for board behaviour from the field: cgroup hierarchies (Android, Debian hybrid), ... */
#include "config/platform.h"
#include "core/error.h"
#include "core/util.h"
#include "core/utf8.h"
#include "engine/affinity.h"
#include "engine/cgroup.h"
#include "engine/identity.h"
#include "engine/knobs.h"
#include "engine/cpufreq_plan.h"

#include "test.h"
#include "test_platform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *fixture(const char *rel)
{
	const char *src = getenv("KVB_SOURCE_DIR");
	char path[1024];
	FILE *f;
	char *buf;
	long n;
	snprintf(path, sizeof(path), "%s/tests/fixtures/field/%s", src ? src : ".", rel);
	f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "cannot open %s\n", path);
		return calloc(1, 1);
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)n + 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n)
		buf[0] = '\0';
	fclose(f);
	return buf;
}

static int says_cpu(void *arg, const char *mount)
{
	return !strcmp((const char *)arg, mount);
}

static void test_cgroup__android_uses_v1_cpuctl_not_cgroup2(void)
{
	char *m = fixture("mounts/android-proc-mounts.txt");
	struct kvb_cgroup_hier h;
	struct kvb_error err;
	/* cgroup2's cgroup.controllers has no cpu (the callback says no for every mount) */
	CHECK(kvb_cgroup_pick(m, says_cpu, "/nowhere", &h, &err) == KVB_OK);
	CHECK(h.v2 == 0);
	CHECK_STR(h.mount, "/dev/cpuctl");
	CHECK_STR(h.controllers, "cpu");
	kvb_cgroup_hier_release(&h);
	/* a cgroup2 that does offer cpu wins */
	CHECK(kvb_cgroup_pick(m, says_cpu, "/sys/fs/cgroup", &h, &err) == KVB_OK);
	CHECK(h.v2 == 1);
	CHECK_STR(h.mount, "/sys/fs/cgroup");
	kvb_cgroup_hier_release(&h);
	free(m);
}

static void test_cgroup__debian_hybrid_uses_sys_fs_cgroup_cpu(void)
{
	char *m = fixture("mounts/debian-hybrid-proc-mounts.txt");
	struct kvb_cgroup_hier h;
	struct kvb_error err;
	CHECK(kvb_cgroup_pick(m, NULL, NULL, &h, &err) == KVB_OK);
	CHECK(h.v2 == 0);
	CHECK_STR(h.mount, "/sys/fs/cgroup/cpu");
	CHECK_STR(h.controllers, "cpu");
	kvb_cgroup_hier_release(&h);
	free(m);
}

static void test_cgroup__no_cpu_anywhere_lists_what_it_saw(void)
{
	const char *m = "none /sys/fs/cgroup cgroup2 rw,nosuid,nodev,noexec,relatime 0 0\n"
			"none /dev/blkio cgroup rw,nosuid,nodev,noexec,relatime,blkio 0 0\n"
			"none /dev/cpuset cgroup rw,nosuid,nodev,noexec,relatime,cpuset,noprefix 0 0\n";
	struct kvb_cgroup_hier h;
	struct kvb_error err;
	CHECK(kvb_cgroup_pick(m, NULL, NULL, &h, &err) == KVB_ETARGET);
	CHECK_CONTAINS(err.msg, "no cgroup hierarchy with the cpu controller");
	CHECK_CONTAINS(err.msg, "/sys/fs/cgroup (cgroup2)");
	/* cpuset is not cpu: whole option words only */
	CHECK_CONTAINS(err.msg, "/dev/cpuset (cgroup v1: rw,nosuid,nodev,noexec,relatime,cpuset,noprefix)");
	kvb_cgroup_hier_release(&h);
}

static void test_cgroup__comounted_cpu_cpuacct_and_escaped_mountpoint(void)
{
	const char *m = "cgroup /sys/fs/cgroup/cpu\\040x cgroup rw,nosuid,nodev,noexec,relatime,cpuacct,cpu 0 0\n";
	struct kvb_cgroup_hier h;
	struct kvb_error err;
	CHECK(kvb_cgroup_pick(m, NULL, NULL, &h, &err) == KVB_OK);
	CHECK_STR(h.mount, "/sys/fs/cgroup/cpu x");
	CHECK_STR(h.controllers, "cpuacct,cpu");
	kvb_cgroup_hier_release(&h);
}

static void test_cgroup__proc_pid_cgroup_path_per_hierarchy(void)
{
	/* proc(5) / cgroup-v1 docs: ID:CONTROLLERS:PATH; cgroup2 is 0::PATH. Android-like v1 + v2 lines. */
	const char *pc = "5:cpuset:/foreground\n4:cpu,cpuacct:/kvbench-run1/l2\n1:blkio:/\n0::/uid_0/pid_42\n";
	struct kvb_cgroup_hier v1 = { 0, "/dev/cpuctl", "cpu" }, v2 = { 1, "/sys/fs/cgroup", NULL };
	char *p = kvb_cgroup_proc_path(pc, &v1);
	CHECK_STR(p, "/kvbench-run1/l2");
	free(p);
	p = kvb_cgroup_proc_path(pc, &v2);
	CHECK_STR(p, "/uid_0/pid_42");
	free(p);
	/* CRLF from a pre-N adbd and a missing hierarchy */
	p = kvb_cgroup_proc_path("3:cpu:/\r\n", &v1);
	CHECK_STR(p, "/");
	free(p);
	CHECK(kvb_cgroup_proc_path("2:cpuset:/\n", &v1) == NULL);
}


/* HiKey960-like: policy0 = CPUs 0-3 (little), policy4 = CPUs 4-7 (big); listing as kvb_cpufreq_list_argv prints it */
static const char *const POLICIES_ONLINE = "/sys/devices/system/cpu/cpufreq/policy0|0 1 2 3|0 1 2 3\n"
					   "/sys/devices/system/cpu/cpufreq/policy4|4 5 6 7|4 5 6 7\n";
static const char *const POLICIES_BIG_OFF = "/sys/devices/system/cpu/cpufreq/policy0|0 1 2 3|0 1 2 3\n"
					    "/sys/devices/system/cpu/cpufreq/policy4||4 5 6 7\n";

static void runtime_from(struct kvb_runtime *rt, const char *json)
{
	cJSON *o = cJSON_Parse(json);
	struct kvb_diag d;
	kvb_diag_init(&d, NULL);
	kvb_runtime_init(rt);
	CHECK(kvb_runtime_merge_json(rt, o, "t", &d) == 0);
	kvb_diag_release(&d);
	cJSON_Delete(o);
}

static void test_cpufreq__governor_before_its_tunables(void)
{
	struct kvb_runtime rt;
	struct kvb_write_plan p;
	struct kvb_error err;
	/* the tunable is listed first in the agenda; it exists only once schedutil is active */
	runtime_from(&rt, "{\"sysfs\": {\"/sys/devices/system/cpu/cpufreq/policy0/schedutil/rate_limit_us\": 1000,"
			  " \"/sys/devices/system/cpu/cpufreq/policy0/scaling_governor\": \"schedutil\"}}");
	CHECK(kvb_cpufreq_plan(&rt, NULL, NULL, 0, &p, &err) == KVB_OK);
	CHECK(p.paths.n == 2);
	CHECK_STR(p.paths.v[0], "/sys/devices/system/cpu/cpufreq/policy0/scaling_governor");
	CHECK_STR(p.values.v[0], "schedutil");
	CHECK_STR(p.paths.v[1], "/sys/devices/system/cpu/cpufreq/policy0/schedutil/rate_limit_us");
	CHECK_STR(p.values.v[1], "1000");
	kvb_write_plan_release(&p);
	kvb_runtime_release(&rt);
}

static void test_cpufreq__offline_policy_skipped_with_warning(void)
{
	struct kvb_runtime rt;
	struct kvb_write_plan p;
	struct kvb_error err;
	runtime_from(&rt, "{\"governor\": \"performance\"}");
	CHECK(kvb_cpufreq_plan(&rt, POLICIES_BIG_OFF, NULL, 0, &p, &err) == KVB_OK);
	CHECK(p.paths.n == 1);
	CHECK_STR(p.paths.v[0], "/sys/devices/system/cpu/cpufreq/policy0/scaling_governor");
	CHECK(p.warnings.n == 1);
	CHECK_CONTAINS(p.warnings.n ? p.warnings.v[0] : "", "skipping /sys/devices/system/cpu/cpufreq/policy4");
	kvb_write_plan_release(&p);
	/* no policies at all: the knob cannot be applied */
	CHECK(kvb_cpufreq_plan(&rt, "", NULL, 0, &p, &err) == KVB_ETARGET);
	CHECK_CONTAINS(err.msg, "no cpufreq policies");
	kvb_runtime_release(&rt);
}

static void test_cpufreq__per_cluster_governor_then_frequency(void)
{
	struct kvb_cluster cl[] = { { "little", "0-3", NULL }, { "big", "4-7", NULL } };
	struct kvb_runtime rt;
	struct kvb_write_plan p;
	struct kvb_error err;
	runtime_from(&rt, "{\"cpufreq\": {\"big\": {\"frequency\": 1805000, \"governor\": \"userspace\"},"
			  " \"little\": {\"max_freq\": 1402000}}}");
	CHECK(kvb_cpufreq_plan(&rt, POLICIES_ONLINE, cl, 2, &p, &err) == KVB_OK);
	CHECK(p.paths.n == 3);
	CHECK_STR(p.paths.v[0], "/sys/devices/system/cpu/cpufreq/policy4/scaling_governor");
	CHECK_STR(p.values.v[0], "userspace");
	CHECK_STR(p.paths.v[1], "/sys/devices/system/cpu/cpufreq/policy4/scaling_setspeed");
	CHECK_STR(p.values.v[1], "1805000");
	CHECK_STR(p.paths.v[2], "/sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq");
	kvb_write_plan_release(&p);
	/* an offline cluster asked for by name fails the job */
	CHECK(kvb_cpufreq_plan(&rt, POLICIES_BIG_OFF, cl, 2, &p, &err) == KVB_ETARGET);
	CHECK_CONTAINS(err.msg, "cluster 'big' (4-7)");
	/* a name not in topology.clusters */
	CHECK(kvb_cpufreq_plan(&rt, POLICIES_ONLINE, cl, 1, &p, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "'big' names no cluster (name or core type) in the platform's topology.clusters (known: little)");
	kvb_runtime_release(&rt);
}

/* A cluster's governor tunables (WA3 CLUSTER_gov_tunables) go to policyN/GOVERNOR/ right after its governor. */
static void test_cpufreq__per_cluster_tunables_follow_their_governor(void)
{
	struct kvb_cluster cl[] = { { "little", "0-3", NULL }, { "big", "4-7", NULL } };
	struct kvb_runtime rt;
	struct kvb_write_plan p;
	struct kvb_error err;
	runtime_from(&rt, "{\"cpufreq\": {\"big\": {\"tunables\": {\"rate_limit_us\": 500}, \"governor\": \"schedutil\","
			  " \"max_freq\": 2362000}}}");
	CHECK(kvb_cpufreq_plan(&rt, POLICIES_ONLINE, cl, 2, &p, &err) == KVB_OK);
	CHECK(p.paths.n == 3);
	CHECK_STR(p.paths.v[0], "/sys/devices/system/cpu/cpufreq/policy4/scaling_governor");
	CHECK_STR(p.paths.v[1], "/sys/devices/system/cpu/cpufreq/policy4/schedutil/rate_limit_us");
	CHECK_STR(p.values.v[1], "500");
	CHECK_STR(p.paths.v[2], "/sys/devices/system/cpu/cpufreq/policy4/scaling_max_freq");
	kvb_write_plan_release(&p);
	kvb_runtime_release(&rt);
	/* without the governor the directory is unknown: the job fails, never a guess */
	runtime_from(&rt, "{\"cpufreq\": {\"big\": {\"tunables\": {\"rate_limit_us\": 500}}}}");
	CHECK(kvb_cpufreq_plan(&rt, POLICIES_ONLINE, cl, 2, &p, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "cluster 'big': tunables need the cluster's governor");
	kvb_runtime_release(&rt);
}

/* WA3's NAME_governor takes devlib's core names: a key naming no cluster matches a cluster's core type. */
static void test_cpufreq__core_type_names_a_cluster(void)
{
	struct kvb_cluster cl[] = { { "little", "0-3", "cortex-a53" }, { "big", "4-7", "cortex-a73" } };
	struct kvb_runtime rt;
	struct kvb_write_plan p;
	struct kvb_error err;
	size_t idx[2];
	CHECK(kvb_clusters_match(cl, 2, "A73", idx) == 1 && idx[0] == 1);
	CHECK(kvb_clusters_match(cl, 2, "cortex-a53", idx) == 1 && idx[0] == 0);
	CHECK(kvb_clusters_match(cl, 2, "a7", idx) == 0);
	runtime_from(&rt, "{\"cpufreq\": {\"A73\": {\"governor\": \"performance\"}}}");
	CHECK(kvb_cpufreq_plan(&rt, POLICIES_ONLINE, cl, 2, &p, &err) == KVB_OK);
	CHECK(p.paths.n == 1);
	CHECK_STR(p.paths.n ? p.paths.v[0] : "", "/sys/devices/system/cpu/cpufreq/policy4/scaling_governor");
	kvb_write_plan_release(&p);
	kvb_runtime_release(&rt);
	runtime_from(&rt, "{\"cpufreq\": {\"a15\": {\"governor\": \"performance\"}}}");
	CHECK(kvb_cpufreq_plan(&rt, POLICIES_ONLINE, cl, 2, &p, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "(known: little (cortex-a53), big (cortex-a73))");
	kvb_runtime_release(&rt);
}

static void test_utf8__invalid_bytes_become_one_fffd_each(void)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "caf\xc3\xa9", "caf\xc3\xa9" },                       /* valid: unchanged */
		{ "caf\xe9", "caf\xef\xbf\xbd" },                       /* Latin-1 byte */
		{ "\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd" },            /* overlong '/' */
		{ "a\xed\xa0\x80" "b", "a\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" "b" }, /* UTF-16 surrogate */
		{ "\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" }, /* above U+10FFFF */
		{ "x\xe2\x82", "x\xef\xbf\xbd\xef\xbf\xbd" },           /* truncated at the end */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *o = kvb_utf8_clean(cases[i].in, strlen(cases[i].in));
		CHECK_STR(o, cases[i].out);
		CHECK(kvb_utf8_valid(o, strlen(o)));
		free(o);
	}
	CHECK(!kvb_utf8_valid("caf\xe9", 4));
}

static void test_affinity__cpu_list_to_toybox_hex_mask(void)
{
	static const char *const cases[][2] = { { "0-3,6", "4f" }, { "4-7", "f0" }, { "0", "1" }, { "1", "2" },
						{ "63", "8000000000000000" }, { "0,64", "10000000000000001" } };
	struct kvb_error err;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *m = NULL;
		CHECK(kvb_cpulist_to_mask(cases[i][0], &m, &err) == KVB_OK);
		CHECK_STR(m, cases[i][1]);
		free(m);
	}
	char *m = NULL;
	CHECK(kvb_cpulist_to_mask("1,x", &m, &err) == KVB_EINPUT);
	CHECK(kvb_cpulist_to_mask("3-1", &m, &err) == KVB_EINPUT);
	CHECK(m == NULL);
}

/* The board's online CPUs are read under the platform's sysfs_root (a fake tree saying only CPU 5
 * is online), not from this host's /sys. */
static void test_affinity__online_cpus_read_under_sysfs_root(void)
{
	char root[] = "/tmp/kvb-affinity-XXXXXX", *dir, *file;
	struct kvb_platform p;
	struct kvb_diag d;
	struct kvb_target t;
	struct kvb_error err;
	FILE *f;
	CHECK(mkdtemp(root) != NULL);
	dir = kvb_xasprintf("%s/sys/devices/system/cpu", root);
	file = kvb_xasprintf("%s/online", dir);
	CHECK(kvb_mkdir_p(dir, 0755) == 0);
	CHECK((f = fopen(file, "w")) != NULL);
	fputs("5\n", f);
	fclose(f);
	CHECK(load_text(&p, &d, "name: t\nconnection: {type: local}\n") == KVB_OK);
	p.sysfs_root = root;
	CHECK(kvb_target_open(&t, &p, &err) == KVB_OK);
	CHECK(kvb_affinity_check_online(&t, "5", &err) == KVB_OK);
	CHECK(kvb_affinity_check_online(&t, "0,5", &err) == KVB_ETARGET);
	CHECK_CONTAINS(err.msg, "CPU 0 is not online on the board (online: 5)");
	kvb_target_close(&t);
	p.sysfs_root = NULL;
	kvb_platform_release(&p);
	kvb_diag_release(&d);
	unlink(file);
	for (char *slash; strcmp(dir, root); *slash = '\0') {
		rmdir(dir);
		slash = strrchr(dir, '/');
	}
	rmdir(root);
	free(file);
	free(dir);
}

/* Writes text to root/rel, making its directories. */
static void put(const char *root, const char *rel, const char *text)
{
	char *path = kvb_xasprintf("%s%s", root, rel), *slash = strrchr(path, '/');
	FILE *f;
	*slash = '\0';
	CHECK(kvb_mkdir_p(path, 0755) == 0);
	*slash = '/';
	CHECK((f = fopen(path, "w")) != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	free(path);
}

/* Removes the fake tree root through the (local) target t. */
static void rm_tree(struct kvb_target *t, const char *root)
{
	const char *argv[] = { "rm", "-rf", root, NULL };
	struct kvb_exec_result r;
	struct kvb_error err;
	kvb_exec_result_init(&r);
	CHECK(kvb_target_exec(t, argv, 30000, &r, &err) == KVB_OK);
	kvb_exec_result_release(&r);
}

/*
 * cgroup_depth finds its hierarchy in the board's /proc/mounts under the platform's sysfs_root:
 * an Android board's table (opencontainers/runc#4513: cgroup2 at /sys/fs/cgroup without cpu, v1
 * cpu at /dev/cpuctl; WA3#1199: the cgroups module of devlib failing on a Pixel 6) laid in a fake
 * tree gives v1 ROOT/dev/cpuctl, not this host's hierarchy.
 */
static void test_cgroup__mounts_read_under_sysfs_root(void)
{
	char root[] = "/tmp/kvb-cgroot-XXXXXX", *m = fixture("mounts/android-proc-mounts.txt"), *want;
	struct kvb_platform p;
	struct kvb_diag d;
	struct kvb_target t;
	struct kvb_cgroup_hier h;
	struct kvb_error err;
	CHECK(mkdtemp(root) != NULL);
	put(root, "/proc/mounts", m);
	put(root, "/sys/fs/cgroup/cgroup.controllers", "memory\n"); /* Android's cgroup2: no cpu */
	put(root, "/dev/cpuctl/cpu.shares", "1024\n");
	CHECK(load_text(&p, &d, "name: t\nconnection: {type: local}\n") == KVB_OK);
	p.sysfs_root = root;
	CHECK(kvb_target_open(&t, &p, &err) == KVB_OK);
	CHECK(kvb_cgroup_find(&t, &h, &err) == KVB_OK);
	want = kvb_xasprintf("%s/dev/cpuctl", root);
	CHECK(h.v2 == 0);
	CHECK_STR(h.mount, want);
	CHECK_STR(h.controllers, "cpu");
	kvb_cgroup_hier_release(&h);
	rm_tree(&t, root);
	kvb_target_close(&t);
	p.sysfs_root = NULL;
	kvb_platform_release(&p);
	kvb_diag_release(&d);
	free(want);
	free(m);
}

/*
 * The identity check reads the running kernel's release, version and command line from the
 * board's /proc under sysfs_root when the tree holds them (a simulated board; the files devlib
 * PR #23 falls back to where uname is missing), not this host's uname.
 */
static void test_identity__read_under_sysfs_root(void)
{
	char root[] = "/tmp/kvb-ident-XXXXXX";
	struct kvb_platform p;
	struct kvb_diag d;
	struct kvb_target t;
	struct kvb_variant v;
	struct kvb_identity id;
	struct kvb_error err;
	CHECK(mkdtemp(root) != NULL);
	put(root, "/proc/sys/kernel/osrelease", "4.19.113-g820e6fb-ab6\n");
	put(root, "/proc/sys/kernel/version", "#1 SMP PREEMPT Fri Oct 2 09:43:33 UTC 2020\n");
	put(root, "/proc/cmdline", "console=ttyAMA6,115200 androidboot.hardware=hikey960 quiet\n");
	CHECK(load_text(&p, &d, "name: t\nconnection: {type: local}\n") == KVB_OK);
	p.sysfs_root = root;
	CHECK(kvb_target_open(&t, &p, &err) == KVB_OK);
	memset(&v, 0, sizeof(v));
	v.expected_release = "4.19.113-g820e6fb-ab6";
	v.cmdline = "quiet";
	CHECK(kvb_identity_check(&t, &v, &id, &err) == KVB_OK);
	CHECK_STR(id.release, "4.19.113-g820e6fb-ab6");
	CHECK_STR(id.version, "#1 SMP PREEMPT Fri Oct 2 09:43:33 UTC 2020");
	kvb_identity_release(&id);
	v.cmdline = "isolcpus=1";
	CHECK(kvb_identity_check(&t, &v, &id, &err) == KVB_ETARGET);
	CHECK_CONTAINS(err.msg, "androidboot.hardware=hikey960");
	kvb_identity_release(&id);
	rm_tree(&t, root);
	kvb_target_close(&t);
	p.sysfs_root = NULL;
	kvb_platform_release(&p);
	kvb_diag_release(&d);
}

/*
 * A sysctl knob is written, read back and restored under the platform's sysfs_root: a fake
 * tree's proc/sys/kernel/sched_rr_timeslice_ms goes 100 -> 25 -> 100, and this host's is not
 * touched (where the knob file lives in a tree a simulated board lays out, as its /sys does).
 */
static void test_knobs__sysctl_under_sysfs_root(void)
{
	char root[] = "/tmp/kvb-sysctl-XXXXXX", *file, *text = NULL;
	struct kvb_platform p;
	struct kvb_diag d, kd;
	struct kvb_target t;
	struct kvb_runtime rt;
	struct kvb_knob_state k;
	struct kvb_error err;
	cJSON *obj = cJSON_Parse("{\"sysctl\": {\"kernel.sched_rr_timeslice_ms\": 25}}");
	CHECK(mkdtemp(root) != NULL);
	put(root, "/proc/sys/kernel/sched_rr_timeslice_ms", "100\n");
	file = kvb_xasprintf("%s/proc/sys/kernel/sched_rr_timeslice_ms", root);
	CHECK(load_text(&p, &d, "name: t\nconnection: {type: local}\n") == KVB_OK);
	p.sysfs_root = root;
	CHECK(kvb_target_open(&t, &p, &err) == KVB_OK);
	kvb_runtime_init(&rt);
	kvb_diag_init(&kd, NULL);
	CHECK(kvb_runtime_merge_json(&rt, obj, "runtime_parameters", &kd) == 0);
	kvb_knob_state_init(&k);
	CHECK(kvb_knobs_apply(&t, &rt, "t1", &k, &err) == KVB_OK);
	CHECK(kvb_target_read(&t, file, &text, &err) == KVB_OK);
	CHECK_STR(text, "25");
	free(text);
	CHECK(kvb_knobs_restore(&t, &k, &err) == KVB_OK);
	CHECK(kvb_target_read(&t, file, &text, &err) == KVB_OK);
	CHECK_STR(text, "100");
	free(text);
	kvb_knob_state_release(&k);
	kvb_runtime_release(&rt);
	kvb_diag_release(&kd);
	cJSON_Delete(obj);
	rm_tree(&t, root);
	kvb_target_close(&t);
	p.sysfs_root = NULL;
	kvb_platform_release(&p);
	kvb_diag_release(&d);
	free(file);
}

#define TESTS                                                                                          \
	T(test_cgroup__android_uses_v1_cpuctl_not_cgroup2)                                             \
	T(test_cgroup__debian_hybrid_uses_sys_fs_cgroup_cpu)                                           \
	T(test_cgroup__no_cpu_anywhere_lists_what_it_saw)                                              \
	T(test_cgroup__comounted_cpu_cpuacct_and_escaped_mountpoint)                                   \
	T(test_cgroup__proc_pid_cgroup_path_per_hierarchy)                                             \
	T(test_cpufreq__governor_before_its_tunables)                                                  \
	T(test_cpufreq__offline_policy_skipped_with_warning)                                           \
	T(test_cpufreq__per_cluster_governor_then_frequency)                                           \
	T(test_cpufreq__per_cluster_tunables_follow_their_governor)                                    \
	T(test_cpufreq__core_type_names_a_cluster)                                                     \
	T(test_utf8__invalid_bytes_become_one_fffd_each)                                               \
	T(test_affinity__cpu_list_to_toybox_hex_mask)                                                  \
	T(test_affinity__online_cpus_read_under_sysfs_root)                                            \
	T(test_cgroup__mounts_read_under_sysfs_root)                                                   \
	T(test_identity__read_under_sysfs_root)                                                        \
	T(test_knobs__sysctl_under_sysfs_root)
#include "test_main.h"
