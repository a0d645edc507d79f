/*
 * The rapl meter on real powercap trees (tests/fixtures/field/rapl, PROVENANCE there): the wrap
 * arithmetic and its refusals, zone names from the name files, the sums that count twice, and
 * the meter itself through the local target on a tree built from a fixture (the platform's
 * sysfs_root:), with J and mW from counters moved by known amounts.
 */
#include "config/platform.h"
#include "core/buf.h"
#include "core/util.h"
#include "instrument/instrument.h"
#include "instrument/rapl.h"

#include "test.h"
#include "test_metrics.h"
#include "test_platform.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char *listing(const char *name)
{
	struct kvb_buf b = KVB_BUF_INIT;
	char path[1024];
	snprintf(path, sizeof(path), "%s/tests/fixtures/field/rapl/%s",
		 getenv("KVB_SOURCE_DIR") ? getenv("KVB_SOURCE_DIR") : ".", name);
	if (kvb_buf_read_file(&b, path)) {
		fprintf(stderr, "cannot read %s\n", path);
		return kvb_xstrdup("");
	}
	return kvb_buf_detach(&b);
}

static int parse_fixture(const char *name, struct kvb_rapl_zones *z, struct kvb_error *err)
{
	char *text = listing(name);
	int rc = kvb_rapl_parse(text, "", z, err);
	free(text);
	return rc;
}

static const struct kvb_rapl_zone *zone(const struct kvb_rapl_zones *z, const char *dir)
{
	int64_t i = kvb_rapl_zone_find(z, dir);
	return i < 0 ? NULL : &z->v[i];
}

/* Energy between two readings: one wrap undone, what cannot be known refused (pyJoules PR #21, zeus #91). */
static void test_rapl__a_wrap_is_undone_and_what_cannot_be_known_is_refused(void)
{
	const uint64_t client = 262143328850, dram = 65712999613;
	uint64_t d = 0;
	/* stop below start: start..max + 0..stop, not a negative energy */
	CHECK(kvb_rapl_delta(262143000000, 500000, client, 1.0, 500, &d) == KVB_RAPL_WRAPPED);
	CHECK(d == 328850 + 500000);
	CHECK(kvb_rapl_delta(16834313903, 16839313903, client, 1.0, 500, &d) == KVB_RAPL_MOVED);
	CHECK(d == 5000000);
	/* equal readings: the counter did not move, not a full wrap (benchexec PR #1283 review) */
	CHECK(kvb_rapl_delta(2469474853, 2469474853, client, 1.0, 500, &d) == KVB_RAPL_STILL);
	/* dram's range at 500 W wraps every 131.43 s: up to there one wrap at most, beyond it unknowable,
	 * whichever way the counter moved */
	CHECK(kvb_rapl_delta(1000, 2000, dram, 131.4, 500, &d) == KVB_RAPL_MOVED);
	CHECK(kvb_rapl_delta(1000, 2000, dram, 131.5, 500, &d) == KVB_RAPL_LONG);
	CHECK(kvb_rapl_delta(1000, 2000, client, 131.5, 500, &d) == KVB_RAPL_MOVED);
	CHECK(kvb_rapl_delta(1000, 2000, client, 524.3, 500, &d) == KVB_RAPL_LONG);
	CHECK(kvb_rapl_delta(1000, 2000, client, 524.3, 100, &d) == KVB_RAPL_MOVED);
	/* back from 100 J to 50 J in 1 s: a wrap would be 262093 J, far over 500 W: a reset */
	CHECK(kvb_rapl_delta(100000000, 50000000, client, 1.0, 500, &d) == KVB_RAPL_RESET);
	/* no range to undo a wrap with (codecarbon #1309 subtracted 0 and stored a negative energy) */
	CHECK(kvb_rapl_delta(4000000000, 10000, 0, 10.0, 500, &d) == KVB_RAPL_NO_RANGE);
	CHECK(kvb_rapl_delta(1000, client + 1, client, 1.0, 500, &d) == KVB_RAPL_NO_RANGE);
}

/* Names come from the name files, not the index: Sapphire Rapids' psys sits between the packages. */
static void test_rapl__zones_are_named_from_their_name_files(void)
{
	struct kvb_rapl_zones z = { 0 };
	struct kvb_error err;
	CHECK(parse_fixture("sapphire-rapids-psys-gap.grep", &z, &err) == KVB_OK);
	CHECK(z.n == 5);
	if (z.n == 5) {
		CHECK_STR(zone(&z, "intel-rapl:0")->chan, "package-0");
		CHECK_STR(zone(&z, "intel-rapl:0:0")->chan, "package-0-dram");
		CHECK_STR(zone(&z, "intel-rapl:1")->chan, "psys");
		CHECK_STR(zone(&z, "intel-rapl:2")->chan, "package-1");
		CHECK_STR(zone(&z, "intel-rapl:2:0")->chan, "package-1-dram");
		CHECK(zone(&z, "intel-rapl:2:0")->parent == kvb_rapl_zone_find(&z, "intel-rapl:2"));
		CHECK(zone(&z, "intel-rapl:0:0")->range_uj == 65712999613ull);
		CHECK(zone(&z, "intel-rapl:1")->energy_uj == 60293987000000ull);
	}
	/* procfs's client package: its core sub-zone (enabled 0: a power limit, not the counter) under it */
	CHECK(parse_fixture("procfs-package-core.grep", &z, &err) == KVB_OK);
	CHECK(z.n == 2 && z.v[1].parent == 0 && !strcmp(z.v[1].chan, "package-0-core") && !z.v[1].unreadable &&
	      z.v[1].energy_uj == 118821284256ull);
	/* the laptop's intel-rapl-mmio:0 is the same package again: not a zone */
	CHECK(parse_fixture("laptop-psys.grep", &z, &err) == KVB_OK);
	CHECK(z.n == 4 && kvb_rapl_zone_find(&z, "intel-rapl-mmio:0") < 0);
	CHECK(parse_fixture("amd-zen.grep", &z, &err) == KVB_OK);
	CHECK(z.n == 2 && !strcmp(z.v[1].chan, "package-0-core") && z.v[1].range_uj == 65532610987ull);
	/* energy_uj root only (CVE-2020-8694): grep's message marks the zone, its name still reads */
	CHECK(kvb_rapl_parse("intel-rapl:0/name:package-0\nintel-rapl:0/max_energy_range_uj:262143328850\n",
			     "grep: intel-rapl:0/energy_uj: Permission denied\n", &z, &err) == KVB_OK);
	CHECK(z.n == 1 && !z.v[0].has_energy);
	CHECK_STR(z.v[0].unreadable, "energy_uj: Permission denied");
	/* codecarbon #1309: only energy_uj readable (a chmod scoped to it): no range to undo a wrap by,
	 * so the zone is unreadable (refused), never a negative delta */
	CHECK(kvb_rapl_parse("intel-rapl:0/name:package-0\nintel-rapl:0/energy_uj:4000000000\n",
			     "grep: intel-rapl:0/max_energy_range_uj: Permission denied\n", &z, &err) == KVB_OK);
	CHECK(z.n == 1 && z.v[0].has_energy && !z.v[0].has_range);
	CHECK_STR(z.v[0].unreadable, "max_energy_range_uj: Permission denied");
	{
		uint64_t d = 0;
		/* and a range of 0 (what codecarbon put in its place) bounds nothing: no wrap is undone */
		CHECK(kvb_rapl_delta(4000000000ull, 10000, 0, 10.0, 500, &d) == KVB_RAPL_NO_RANGE);
	}
	CHECK(kvb_rapl_parse("intel-rapl:0/energy_uj:-5\n", "", &z, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "intel-rapl:0/energy_uj:-5: '-5' is not a counter in uJ");
	kvb_rapl_zones_release(&z);
}

static int select_json(const struct kvb_rapl_zones *z, const char *channels, const char *sums, struct kvb_rapl_sel *s,
		       struct kvb_error *err)
{
	cJSON *c = channels ? cJSON_Parse(channels) : NULL, *u = sums ? cJSON_Parse(sums) : NULL;
	int rc = kvb_rapl_select(z, c, u, s, err);
	cJSON_Delete(c);
	cJSON_Delete(u);
	return rc;
}

/* codecarbon PR #950 summed psys + package + core + uncore (14.44 W for 9.61 W); package + dram stands. */
static void test_rapl__a_sum_that_counts_energy_twice_is_refused(void)
{
	struct kvb_rapl_zones z = { 0 };
	struct kvb_rapl_sel s = { 0 };
	struct kvb_error err;
	CHECK(parse_fixture("laptop-psys.grep", &z, &err) == KVB_OK);
	CHECK(select_json(&z, NULL, "{\"t\": [\"package-0\", \"package-0-core\"]}", &s, &err) == KVB_EINPUT);
	CHECK_STR(err.msg, "sum 't' counts energy twice: package-0 (intel-rapl:0) with package-0-core (intel-rapl:0:0): "
			   "a package already counts its core and uncore sub-zones");
	CHECK(select_json(&z, NULL, "{\"t\": [\"package-0\", \"psys\"]}", &s, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "psys is the whole platform");
	/* a rename does not hide the zone behind a channel */
	CHECK(select_json(&z, "{\"cpu\": \"intel-rapl:0:0\", \"pkg\": \"package-0\"}", "{\"t\": [\"cpu\", \"pkg\"]}", &s,
			  &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "cpu (intel-rapl:0:0) with pkg (intel-rapl:0)");
	/* siblings do not overlap */
	CHECK(select_json(&z, NULL, "{\"t\": [\"package-0-core\", \"package-0-uncore\"]}", &s, &err) == KVB_OK);
	CHECK(s.n == 4);
	kvb_rapl_sel_release(&s);
	CHECK(select_json(&z, "{\"cpu\": \"core\"}", NULL, &s, &err) == KVB_EINPUT);
	CHECK_STR(err.msg, "channel 'cpu': no powercap zone 'core'; zones found: package-0 (intel-rapl:0), package-0-core "
			   "(intel-rapl:0:0), package-0-uncore (intel-rapl:0:1), psys (intel-rapl:1)");
	/* the package counter does not count DRAM: package + dram is CPU and memory */
	CHECK(parse_fixture("haswell-i7-4770s.grep", &z, &err) == KVB_OK);
	CHECK(select_json(&z, "{\"pkg\": \"package-0\", \"mem\": \"intel-rapl:0:2\"}", "{\"t\": [\"pkg\", \"mem\"]}", &s,
			  &err) == KVB_OK);
	CHECK(s.n == 2 && s.zone[1] == 3 && !strcmp(s.chan[1], "mem"));
	kvb_rapl_sel_release(&s);
	kvb_rapl_zones_release(&z);
}

static char root[64];

static void put(const char *rel, const char *value)
{
	char *path = kvb_xasprintf("%s/sys/class/powercap/%s", root, rel), *dir = kvb_xstrdup(path);
	FILE *f;
	*strrchr(dir, '/') = '\0';
	kvb_mkdir_p(dir, 0755);
	if ((f = fopen(path, "w"))) {
		fprintf(f, "%s\n", value);
		fclose(f);
	}
	free(dir);
	free(path);
}

/* ROOT/sys/class/powercap from a fixture listing: ZONE/FILE:VALUE -> ZONE/FILE holding VALUE. */
static void tree(const char *fixture)
{
	char *text = listing(fixture);
	for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
		char *colon = strchr(strchr(l, '/'), ':');
		*colon = '\0';
		put(l, colon + 1);
	}
	free(text);
}

/* The meter through the local target on the laptop's tree: package-0 moves 5 J, core (enabled 0)
 * wraps by 3 J, uncore's energy_uj cannot be read, psys does not move. */
static void test_rapl__energy_and_power_from_counters_moved_by_known_amounts(void)
{
	const struct kvb_instrument_ops *ops = kvb_instrument_find("rapl");
	struct kvb_platform p;
	struct kvb_diag d;
	struct kvb_target t;
	struct kvb_metrics m;
	struct kvb_error err;
	cJSON *conf = cJSON_Parse("{\"type\": \"rapl\", \"sums\": {\"cores_gpu\": [\"package-0-core\", \"package-0-uncore\"]}}");
	int64_t t0, t1, t2, t3;
	char cmd[512];
	snprintf(root, sizeof(root), "/tmp/kvb-rapl-XXXXXX");
	CHECK(ops && mkdtemp(root));
	CHECK(load_text(&p, &d, "name: t\nconnection: {type: local}\n") == KVB_OK);
	p.sysfs_root = root;
	CHECK(kvb_target_open(&t, &p, &err) == KVB_OK);
	tree("laptop-psys.grep");
	put("intel-rapl:0:0/energy_uj", "262142328850");  /* 1 J below its range */
	snprintf(cmd, sizeof(cmd), "rm %s/sys/class/powercap/intel-rapl:0:1/energy_uj", root);
	CHECK(system(cmd) == 0);
	snprintf(cmd, sizeof(cmd), "%s/sys/class/powercap/intel-rapl:0:1/energy_uj", root);
	CHECK(mkdir(cmd, 0755) == 0);  /* we run as root: a directory is what cannot be read */
	kvb_metrics_init(&m);
	struct kvb_instr_ctx c = { .name = "cpu", .conf = conf, .target = &t, .plat = &p, .out = &m };
	CHECK(ops->setup(&c, &err) == KVB_OK);
	t0 = kvb_wall_ns();
	CHECK(ops->start(&c, &err) == KVB_OK);
	t1 = kvb_wall_ns();
	put("intel-rapl:0/energy_uj", "26968529117");    /* +5 J */
	put("intel-rapl:0:0/energy_uj", "2000000");      /* wrapped: 1 J + 2 J */
	kvb_sleep_ms(200);
	t2 = kvb_wall_ns();
	CHECK(ops->stop(&c, &err) == KVB_OK);
	t3 = kvb_wall_ns();
	CHECK(ops->collect(&c, &err) == KVB_OK);
	ops->teardown(&c);
	CHECK_NEAR(metric(&m, "energy", "chan_name", "package-0"), 5.0, 1e-9);
	/* mW over the time between the reads: within what the host saw around them */
	CHECK(metric(&m, "power_mean", "chan_name", "package-0") >= 5.0 / ((double)(t3 - t0) / 1e9) * 1000);
	CHECK(metric(&m, "power_mean", "chan_name", "package-0") <= 5.0 / ((double)(t2 - t1) / 1e9) * 1000);
	CHECK_NEAR(metric(&m, "energy", "chan_name", "package-0-core"), 3.0, 1e-9);
	CHECK(isnan(metric(&m, "energy", "chan_name", "package-0-uncore")));
	CHECK(isnan(metric(&m, "energy", "chan_name", "psys")));
	CHECK(isnan(metric(&m, "energy", "chan_name", "cores_gpu")));
	{
		const struct kvb_witness *w = witness(&m, "cpu channel package-0-core");
		CHECK(w && w->verdict == KVB_WIT_OK && w->detail && strstr(w->detail, "wrapped once"));
		w = witness(&m, "cpu channel package-0-uncore");
		CHECK(w && w->verdict == KVB_WIT_REFUSED);
		if (w)
			CHECK_CONTAINS(w->detail, "intel-rapl:0:1/energy_uj: Is a directory");
		w = witness(&m, "cpu channel psys");
		CHECK(w && w->verdict == KVB_WIT_REFUSED && strstr(w->detail, "did not move"));
		w = witness(&m, "cpu sum cores_gpu");
		CHECK(w && w->verdict == KVB_WIT_REFUSED);
	}
	kvb_metrics_release(&m);
	/* nothing readable at all: the instrument fails at start, before the workload */
	snprintf(cmd, sizeof(cmd), "cd %s/sys/class/powercap && for z in intel-rapl:*; do rm -rf $z/energy_uj && mkdir $z/energy_uj; done",
		 root);
	kvb_metrics_init(&m);
	CHECK(system(cmd) == 0);
	CHECK(ops->setup(&c, &err) == KVB_OK);
	CHECK(ops->start(&c, &err) == KVB_ETARGET);
	CHECK_CONTAINS(err.msg, "no readable RAPL counter under '");
	CHECK_CONTAINS(err.msg, "/sys/class/powercap' (intel-rapl:0: energy_uj: Is a directory)");
	ops->teardown(&c);
	kvb_metrics_release(&m);
	cJSON_Delete(conf);
	kvb_target_close(&t);
	p.sysfs_root = NULL;
	kvb_platform_release(&p);
	kvb_diag_release(&d);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK(system(cmd) == 0);
}

#define TESTS                                                                                                          \
	T(test_rapl__a_wrap_is_undone_and_what_cannot_be_known_is_refused)                                             \
	T(test_rapl__zones_are_named_from_their_name_files)                                                            \
	T(test_rapl__a_sum_that_counts_energy_twice_is_refused)                                                        \
	T(test_rapl__energy_and_power_from_counters_moved_by_known_amounts)
#include "test_main.h"
