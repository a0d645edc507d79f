/*
 * Instrument backends against the real local target: the meters driven as
 * real commands (tests/sim/probe_sim writing each meter's real format from a
 * known power function), the Juno hwmon, cpufreq and model backends against a
 * directory tree holding the real sysfs/procfs file names (`root:`), util on
 * this host's /proc/stat, dmesg, ftrace through trace-cmd, and the per-job
 * session: a failing instrument marks the job and keeps the workload metrics.
 */
#include "config/platform.h"
#include "engine/catalog.h"
#include "core/samples.h"
#include "core/spawn.h"
#include "core/util.h"
#include "instrument/probe.h"
#include "instrument/session.h"

#include "test.h"
#include "test_metrics.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char T[256];
static char sim[512];
static struct kvb_platform plat;
static struct kvb_target target;

static const char *path_in(const char *name)
{
	static char p[8][600];
	static int k;
	k = (k + 1) % 8;
	snprintf(p[k], sizeof(p[k]), "%s/%s", T, name);
	return p[k];
}

/* The platform's sysfs_root (what every instrument reads /sys and /proc under): dir in the test's tree, or none. */
static char *sysfs_root;
static void set_sysfs_root(const char *dir)
{
	free(sysfs_root);
	sysfs_root = dir ? kvb_xstrdup(path_in(dir)) : NULL;
	plat.sysfs_root = sysfs_root ? sysfs_root : "";
}

static void write_file(const char *path, const char *text)
{
	char *dir = kvb_xstrdup(path);
	*strrchr(dir, '/') = '\0';
	kvb_mkdir_p(dir, 0755);
	free(dir);
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

static void setup_once(void)
{
	struct kvb_diag d;
	struct kvb_error err;
	const char *b = getenv("KVB_BUILD_DIR");
	if (T[0])
		return;
	snprintf(T, sizeof(T), "/tmp/kvb-test-instr-XXXXXX");
	if (!mkdtemp(T))
		abort();
	snprintf(sim, sizeof(sim), "%s/tests/sim/probe_sim", b ? b : "build");
	if (access(sim, X_OK))
		fprintf(stderr, "probe_sim not built at %s\n", sim);
	/* checked: Debian's hardening flags (-D_FORTIFY_SOURCE=2, the package build) make an ignored result an error */
	if (symlink(sim, path_in("iio-capture")))
		perror("symlink iio-capture");
	write_file(path_in("plat/platform.yaml"),
		   "name: t\nconnection: {type: local}\n"
		   "topology: {clusters: [{name: little, cpus: \"0-1\"}, {name: big, cpus: \"2-3\"}]}\n"
		   "energy_model:\n  little: {500000: 100, 1000000: 300}\n  big: {1000000: 500, 2000000: 1500}\n"
		   "instruments:\n  energy: {type: csv-command, command: [probe_sim, csv]}\n  hw: {type: juno-hwmon}\n");
	kvb_diag_init(&d, NULL);
	if (kvb_platform_load(&plat, path_in("plat/platform.yaml"), &kvb_catalog, &d))
		for (size_t i = 0; i < d.msgs.n; i++)
			fprintf(stderr, "%s\n", d.msgs.v[i]);
	kvb_diag_release(&d);
	if (kvb_target_open(&target, &plat, &err))
		fprintf(stderr, "%s\n", err.msg);
	kvb_mkdir_p(path_in("art"), 0755);
	kvb_mkdir_p(path_in("remote"), 0755);
}

static void wait_for(const char *path)
{
	for (int i = 0; i < 1000 && access(path, F_OK); i++)
		kvb_sleep_ms(10);
	unlink(path);
}

/* One job of one backend: setup, start, [done file or pause], stop, collect, teardown. */
static int run_backend(const char *name, const char *conf_json, const char *done, int64_t win0, int64_t win1,
		       struct kvb_metrics *m, struct kvb_error *err)
{
	cJSON *conf = cJSON_Parse(conf_json);
	const struct kvb_instrument_ops *ops = kvb_instrument_find(kvb_get_str(conf, "type", ""));
	struct kvb_instr_ctx c = { .name = name, .conf = conf, .target = &target, .plat = &plat,
				   .artifact_dir = path_in("art"), .remote_dir = path_in("remote"), .out = m };
	int rc;
	kvb_error_clear(err);
	if (!ops) {
		cJSON_Delete(conf);
		return kvb_error_set(err, KVB_EUSAGE, "no backend in %s", conf_json);
	}
	rc = ops->setup ? ops->setup(&c, err) : 0;
	if (!rc)
		rc = ops->start(&c, err);
	if (!rc && done)
		wait_for(done);
	else if (!rc)
		kvb_sleep_ms(300);  /* a short workload */
	c.start_ns = win0;
	c.stop_ns = win1;
	if (!rc)
		rc = ops->stop(&c, err);
	if (!rc)
		rc = ops->collect(&c, err);
	if (ops->teardown)
		ops->teardown(&c);
	cJSON_Delete(conf);
	return rc;
}

/* Value of metric name (any classifiers), or NAN. */
static double metric_plain(const struct kvb_metrics *m, const char *name)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->v[i].name, name))
			return m->v[i].value;
	return NAN;
}

static void test_csv_command__constant_and_step_power_give_15_joules(void)
{
	struct kvb_metrics m;
	struct kvb_error err;
	char conf[2048];
	setup_once();
	kvb_metrics_init(&m);
	snprintf(conf, sizeof(conf),
		 "{\"type\": \"csv-command\", \"command\": [\"%s\", \"csv\", \"--power\", \"const:1.5\", \"--channels\", \"2\","
		 " \"--done\", \"%s\"], \"sums\": {\"total\": [\"ch0\", \"ch1\"]}}",
		 sim, path_in("done"));
	CHECK(run_backend("energy", conf, path_in("done"), 0, 0, &m, &err) == KVB_OK);
	if (err.msg[0])
		fprintf(stderr, "%s\n", err.msg);
	CHECK_NEAR(metric(&m, "energy", "chan_name", "ch0"), 15.0, 1e-9);
	CHECK_NEAR(metric(&m, "energy", "chan_name", "ch1"), 30.0, 1e-9);
	CHECK_NEAR(metric(&m, "power_mean", "chan_name", "ch0"), 1500.0, 1e-9);
	CHECK_NEAR(metric(&m, "energy", "chan_name", "total"), 45.0, 1e-9);
	CHECK(m.samples && m.samples->n == 2 && m.samples->ch[0].n == 10001);
	CHECK(m.nart == 1 && !strcmp(m.art[0].kind, "energy-raw") && m.art[0].bytes > 100000);
	kvb_metrics_release(&m);

	kvb_metrics_init(&m);
	snprintf(conf, sizeof(conf),
		 "{\"type\": \"csv-command\", \"command\": [\"%s\", \"csv\", \"--power\", \"step:1:2:5\", \"--done\", \"%s\"]}",
		 sim, path_in("done"));
	CHECK(run_backend("energy", conf, path_in("done"), 0, 0, &m, &err) == KVB_OK);
	CHECK_NEAR(metric(&m, "energy", "chan_name", "ch0"), 15.0, 1e-9);
	CHECK_NEAR(metric(&m, "power_mean", "chan_name", "ch0"), 1500.0, 0.1 + 1e-9);  /* 10001 samples: one 1 W extra */
	kvb_metrics_release(&m);
}

static void test_meters__aep_monsoon_acme_give_15_joules(void)
{
	struct kvb_metrics m;
	struct kvb_error err;
	char conf[2048];
	setup_once();
	kvb_metrics_init(&m);
	snprintf(conf, sizeof(conf),
		 "{\"type\": \"aep\", \"command\": [\"%s\", \"aep\", \"--channels\", \"2\", \"--done\", \"%s\"],"
		 " \"channels\": {\"big\": \"CH1\"}}",
		 sim, path_in("done"));
	CHECK(run_backend("aep", conf, path_in("done"), 0, 0, &m, &err) == KVB_OK);
	if (err.msg[0])
		fprintf(stderr, "%s\n", err.msg);
	/* Only the renamed channel: CH1 is twice CH0. */
	CHECK(m.samples && m.samples->n == 1);
	CHECK_NEAR(metric(&m, "energy", "chan_name", "big"), 30.0, 1e-6);
	kvb_metrics_release(&m);

	kvb_metrics_init(&m);
	snprintf(conf, sizeof(conf),
		 "{\"type\": \"monsoon\", \"rate_hz\": 5000, \"command\": [\"%s\", \"monsoon\", \"--channels\", \"2\","
		 " \"--done\", \"%s\"]}",
		 sim, path_in("done"));
	CHECK(run_backend("monsoon", conf, path_in("done"), 0, 0, &m, &err) == KVB_OK);
	CHECK_NEAR(metric(&m, "energy", "chan_name", "output_power"), 15.0, 1e-6);
	CHECK_NEAR(metric(&m, "energy", "chan_name", "usb_power"), 2.5, 1e-6);
	kvb_metrics_release(&m);

	kvb_metrics_init(&m);
	setenv("PROBE_SIM_DONE", path_in("done"), 1);
	snprintf(conf, sizeof(conf),
		 "{\"type\": \"acme\", \"host\": \"baylibre-acme.local\", \"iio_capture\": \"%s\","
		 " \"channels\": {\"sys\": \"iio:device0\"}}",
		 path_in("iio-capture"));
	CHECK(run_backend("acme", conf, path_in("done"), 0, 0, &m, &err) == KVB_OK);
	if (err.msg[0])
		fprintf(stderr, "%s\n", err.msg);
	CHECK_NEAR(metric(&m, "energy", "chan_name", "sys"), 15.0, 1e-9);
	CHECK_NEAR(metric(&m, "power_mean", "chan_name", "sys"), 1500.0, 1e-9);
	kvb_metrics_release(&m);
	/* A device iio-capture cannot find: the tool's own message comes back (ready_timeout_ms: start
	 * sees it exit, whatever the time it takes to, rather than a guess of 300 ms; the capture of the
	 * channel above is removed, else it would count as this one's first output). */
	kvb_metrics_init(&m);
	unlink(path_in("art/acme-sys.csv"));
	snprintf(conf, sizeof(conf),
		 "{\"type\": \"acme\", \"host\": \"h\", \"iio_capture\": \"%s\", \"ready_timeout_ms\": 60000,"
		 " \"channels\": {\"sys\": \"nosuch\"}}",
		 path_in("iio-capture"));
	CHECK(run_backend("acme", conf, NULL, 0, 0, &m, &err) == KVB_ETARGET);
	CHECK(!strstr(err.msg, "instrument 'acme'")); /* the session adds the instance's name, once */
	CHECK_CONTAINS(err.msg, "ended before writing anything to '");
	CHECK_CONTAINS(err.msg, "(exit status 1): Device nosuch not found");
	unsetenv("PROBE_SIM_DONE");
	kvb_metrics_release(&m);
}

/* Shape of a line: every run of digits becomes 'D' ("-42.5, 10.0" -> "-D.D, D.D"). */
static void line_shape(const char *a, const char *e, struct kvb_buf *out)
{
	kvb_buf_reset(out);
	while (a < e) {
		if (*a >= '0' && *a <= '9') {
			while (a < e && *a >= '0' && *a <= '9')
				a++;
			kvb_buf_addc(out, 'D');
		} else {
			kvb_buf_addc(out, *a++);
		}
	}
}

/* probe_sim as iio-capture writes what a real cape's iio-capture wrote (tests/fixtures/field/acme). */
static void test_meters__iio_capture_sim_writes_the_real_format(void)
{
	const char *argv[] = { path_in("iio-capture"), "-n", "h", "-b", "256", "-c", "-f", path_in("sim-acme.csv"),
			       "iio:device0", NULL };
	struct kvb_spawn_opts o = { .argv = argv };
	struct kvb_bgproc bg;
	struct kvb_error err;
	struct kvb_buf real = KVB_BUF_INIT, got = KVB_BUF_INIT, shape = KVB_BUF_INIT, real_shapes = KVB_BUF_INIT;
	const char *rl, *gl;
	size_t rows = 0;
	setup_once();
	/* Like iio-capture it records until SIGTERM; it says when everything is written. */
	unlink(path_in("done-fmt"));
	setenv("PROBE_SIM_DONE", path_in("done-fmt"), 1);
	CHECK(kvb_spawn_bg(&o, &bg, &err) == KVB_OK);
	unsetenv("PROBE_SIM_DONE");
	wait_for(path_in("done-fmt"));
	kvb_spawn_stop(&bg, SIGTERM, 10000);
	CHECK(kvb_buf_read_file(&real, KVB_SOURCE_DIR "/tests/fixtures/field/acme/iio-capture-Device0.csv") == 0);
	CHECK(kvb_buf_read_file(&got, path_in("sim-acme.csv")) == 0);
	if (!real.len || !got.len)
		goto out;
	/* The header byte for byte, newline included. */
	rl = strchr(real.data, '\n');
	gl = strchr(got.data, '\n');
	CHECK(rl && gl && rl - real.data == gl - got.data && !memcmp(real.data, got.data, (size_t)(rl - real.data + 1)));
	/* Every real row's shape, then every simulated row must have one of them. */
	for (const char *a = rl + 1, *e; *a && (e = strchr(a, '\n')); a = e + 1) {
		line_shape(a, e, &shape);
		kvb_buf_addf(&real_shapes, "|%s|", shape.data);
	}
	for (const char *a = gl + 1, *e; *a && (e = strchr(a, '\n')); a = e + 1, rows++) {
		char want[256];
		line_shape(a, e, &shape);
		snprintf(want, sizeof(want), "|%s|", shape.data);
		if (!strstr(real_shapes.data, want)) {
			fprintf(stderr, "simulated row %zu has shape %s, not one of %s\n", rows + 1, want, real_shapes.data);
			CHECK(0);
			break;
		}
	}
	CHECK(rows == 1001);  /* 10 s at 100 Hz, both ends */
	CHECK(got.data[got.len - 1] == '\n');
out:
	kvb_buf_release(&real);
	kvb_buf_release(&got);
	kvb_buf_release(&shape);
	kvb_buf_release(&real_shapes);
}

/* "0.081740": digits, '.', six digits (monsoon.py's "%f"), the whole field. */
static int monsoon_field(const char *a, size_t n)
{
	size_t i = strspn(a, "0123456789");
	return i > 0 && i + 7 == n && a[i] == '.' && strspn(a + i + 1, "0123456789") >= 6;
}

/* Every line "W W\n": two monsoon_field()s and one space; returns lines or -1. */
static long monsoon_lines(const char *d)
{
	long n = 0;
	for (const char *a = d, *e; *a; a = e + 1, n++) {
		const char *sp;
		if (!(e = strchr(a, '\n')) || !(sp = memchr(a, ' ', (size_t)(e - a))) ||
		    !monsoon_field(a, (size_t)(sp - a)) || !monsoon_field(sp + 1, (size_t)(e - sp - 1)))
			return -1;
	}
	return n;
}

/* probe_sim monsoon writes what monsoon.py --includeusb wrote on a real Monsoon (tests/fixtures/field/monsoon). */
static void test_meters__monsoon_sim_writes_monsoon_py_lines(void)
{
	const char *argv[] = { sim, "monsoon", "--channels", "2", "--duration", "1", "--rate", "500", "-o",
			       path_in("sim-monsoon.txt"), NULL };
	struct kvb_spawn_opts o = { .argv = argv, .timeout_ms = 60000 };
	struct kvb_exec_result r;
	struct kvb_error err;
	struct kvb_buf real = KVB_BUF_INIT, got = KVB_BUF_INIT;
	setup_once();
	kvb_exec_result_init(&r);
	CHECK(kvb_spawn_run(&o, &r, &err) == KVB_OK && r.exit_code == 0);
	CHECK(kvb_buf_read_file(&real, KVB_SOURCE_DIR "/tests/fixtures/field/monsoon/monsoon-py-includeusb-stdout.txt") == 0);
	CHECK(kvb_buf_read_file(&got, path_in("sim-monsoon.txt")) == 0);
	CHECK(real.len && monsoon_lines(real.data) == 9);  /* the fixture itself has that form */
	CHECK(got.len && monsoon_lines(got.data) == 501);  /* 1 s at 500 Hz, both ends */
	kvb_exec_result_release(&r);
	kvb_buf_release(&real);
	kvb_buf_release(&got);
}

static void test_meters__absolute_times_cut_to_job_window(void)
{
	struct kvb_metrics m;
	struct kvb_error err;
	char conf[2048];
	int64_t t0 = 1700000000000000000ll;
	setup_once();
	kvb_metrics_init(&m);
	snprintf(conf, sizeof(conf),
		 "{\"type\": \"csv-command\", \"command\": [\"%s\", \"csv\", \"--t0-ns\", \"%lld\", \"--done\", \"%s\"]}", sim,
		 (long long)t0, path_in("done"));
	CHECK(run_backend("energy", conf, path_in("done"), t0 + 2000000000ll, t0 + 7000000000ll, &m, &err) == KVB_OK);
	CHECK_NEAR(metric(&m, "energy", "chan_name", "ch0"), 7.5, 1e-9);
	CHECK(m.samples && m.samples->ch[0].n == 5001);
	kvb_metrics_release(&m);
}

/* rc == KVB_OK, printing the error otherwise. */
static int run_backend_window_ok(int rc, const struct kvb_error *err)
{
	if (rc)
		fprintf(stderr, "%s\n", err->msg);
	return rc == KVB_OK;
}

/*
 * One job of `ms` milliseconds with a meter that records in real time: setup, start, the
 * window [after start, before stop] as the engine takes it (session.c), stop, collect.
 */
static int run_window(const char *name, const char *conf_json, unsigned ms, struct kvb_metrics *m,
		      struct kvb_error *err, int64_t *win_ns)
{
	cJSON *conf = cJSON_Parse(conf_json);
	const struct kvb_instrument_ops *ops = kvb_instrument_find(kvb_get_str(conf, "type", ""));
	struct kvb_instr_ctx c = { .name = name, .conf = conf, .target = &target, .plat = &plat,
				   .artifact_dir = path_in("art"), .remote_dir = path_in("remote"), .out = m };
	int rc;
	kvb_error_clear(err);
	rc = ops->setup ? ops->setup(&c, err) : 0;
	if (!rc)
		rc = ops->start(&c, err);
	c.start_ns = kvb_wall_ns();
	kvb_sleep_ms(ms); /* the job: the meter records while it runs */
	c.stop_ns = kvb_wall_ns();
	*win_ns = c.stop_ns - c.start_ns;
	if (!rc)
		rc = ops->stop(&c, err);
	if (!rc)
		rc = ops->collect(&c, err);
	if (ops->teardown)
		ops->teardown(&c);
	cJSON_Delete(conf);
	return rc;
}

static void test_meters__a_meter_that_flushes_only_on_sigint_gets_sigint_and_proves_its_window(void)
{
	/* devlib #47/#48: caiman (the Arm Energy Probe's host tool) handles SIGINT only; SIGTERM kills it
	 * with its buffer unwritten. probe_sim records 1.5 W in real time, written in 2 s blocks, like that. */
	struct kvb_metrics m;
	struct kvb_error err;
	const struct kvb_witness *w;
	struct kvb_buf said = KVB_BUF_INIT;
	char conf[2048];
	int64_t win;
	setup_once();
	/* an aep meter is stopped with SIGINT by default: the sim says so and wrote every sample. edge_ms:
	 * arm-probe's time counts from its own start, later than kvbench's spawn by its start-up (seconds
	 * for an ASan build on this shared host), which only moves the samples, not the point here */
	kvb_metrics_init(&m);
	unlink(path_in("art/aep.out.stderr"));
	snprintf(conf, sizeof(conf),
		 "{\"type\": \"aep\", \"edge_ms\": 5000, \"command\": [\"%s\", \"aep\", \"--realtime\", \"--rate\", \"1000\","
		 " \"--buffer-s\", \"2\", \"--stop-on\", \"int\", \"--power\", \"const:1.5\"]}",
		 sim);
	CHECK(run_backend_window_ok(run_window("aep", conf, 3000, &m, &err, &win), &err));
	kvb_buf_read_file(&said, path_in("art/aep.out.stderr"));
	CHECK_CONTAINS(said.data, "probe_sim: stopped by SIGINT after ");
	CHECK(metric(&m, "energy", "chan_name", "CH0") > 1.5);
	w = witness(&m, "aep channel CH0");
	CHECK(w && w->verdict == KVB_WIT_OK);
	kvb_buf_release(&said);
	kvb_metrics_release(&m);

	/* the same meter stamping absolute times, stopped with SIGTERM (csv-command's default, and what
	 * devlib sent caiman before #48): its last block is lost; the old code stored 2.99 J of 4.5 J.
	 * ready_timeout_ms: the job starts once the meter has written (its first block), not before */
	kvb_metrics_init(&m);
	snprintf(conf, sizeof(conf),
		 "{\"type\": \"csv-command\", \"ready_timeout_ms\": 20000, \"command\": [\"%s\", \"csv\", \"--realtime\", \"--rate\", \"1000\", \"--t0-ns\","
		 " \"now\", \"--buffer-s\", \"2\", \"--stop-on\", \"int\", \"--power\", \"const:1.5\"]}",
		 sim);
	CHECK(run_backend_window_ok(run_window("caiman", conf, 3000, &m, &err, &win), &err));
	CHECK(isnan(metric(&m, "energy", "chan_name", "ch0")));
	CHECK(isnan(metric(&m, "power_mean", "chan_name", "ch0")));
	w = witness(&m, "caiman channel ch0");
	CHECK(w && w->verdict == KVB_WIT_REFUSED);
	if (w) {
		CHECK_CONTAINS(w->observed, " of 3.0");
		CHECK_CONTAINS(w->detail, "energy and power_mean not stored: ends ");
	}
	/* its samples are kept for a look (the store writes no energy for them) */
	CHECK(m.samples && m.samples->n == 1 && m.samples->ch[0].refused && m.samples->ch[0].n > 1000);
	kvb_metrics_release(&m);

	/* stop_signal: INT: every sample, 1.5 W x the window */
	kvb_metrics_init(&m);
	snprintf(conf, sizeof(conf),
		 "{\"type\": \"csv-command\", \"stop_signal\": \"INT\", \"ready_timeout_ms\": 20000, \"command\": [\"%s\", \"csv\","
		 " \"--realtime\", \"--rate\","
		 " \"1000\", \"--t0-ns\", \"now\", \"--buffer-s\", \"2\", \"--stop-on\", \"int\", \"--power\", \"const:1.5\"]}",
		 sim);
	CHECK(run_backend_window_ok(run_window("caiman", conf, 3000, &m, &err, &win), &err));
	CHECK_NEAR(metric(&m, "energy", "chan_name", "ch0"), 1.5 * (double)win / 1e9, 1.5 * 0.06);
	w = witness(&m, "caiman channel ch0");
	CHECK(w && w->verdict == KVB_WIT_OK);
	if (w)
		CHECK_CONTAINS(w->observed, " of 3.0");
	kvb_metrics_release(&m);
}

static void test_meters__a_meter_that_does_not_stop_is_killed_with_a_witness(void)
{
	struct kvb_metrics m;
	struct kvb_error err;
	const struct kvb_witness *w;
	char conf[2048];
	int64_t win;
	uint64_t t0;
	setup_once();
	kvb_metrics_init(&m);
	snprintf(conf, sizeof(conf),
		 "{\"type\": \"csv-command\", \"stop_timeout_ms\": 300, \"ready_timeout_ms\": 20000, \"command\": [\"%s\","
		 " \"csv\", \"--realtime\","
		 " \"--rate\", \"100\", \"--t0-ns\", \"now\", \"--stop-on\", \"none\"]}",
		 sim);
	t0 = kvb_mono_ns();
	CHECK(run_backend_window_ok(run_window("hung", conf, 500, &m, &err, &win), &err));
	CHECK(kvb_mono_ns() - t0 < 4000000000ull); /* stop_timeout_ms, not the old fixed 5 s */
	w = witness(&m, "hung stop");
	CHECK(w && w->verdict == KVB_WIT_CHANGED);
	if (w) {
		CHECK_STR(w->observed, "still running: killed (SIGKILL)");
		CHECK_CONTAINS(w->detail, "did not exit within stop_timeout_ms 300 of SIGTERM and was killed");
	}
	/* it wrote as it went: what it wrote covers the window, so the energy stands */
	w = witness(&m, "hung channel ch0");
	CHECK(w && w->verdict == KVB_WIT_OK);
	CHECK(metric(&m, "energy", "chan_name", "ch0") > 0);
	kvb_metrics_release(&m);
}

static void test_meters__no_sample_in_the_window_is_refused_not_0_joules(void)
{
	struct kvb_metrics m;
	struct kvb_error err;
	const struct kvb_witness *w;
	char conf[2048];
	int64_t now = kvb_wall_ns();
	setup_once();
	kvb_metrics_init(&m);
	/* a meter whose clock says 2001: every sample is outside the job window */
	snprintf(conf, sizeof(conf),
		 "{\"type\": \"csv-command\", \"command\": [\"%s\", \"csv\", \"--t0-ns\", \"1000000000000000000\","
		 " \"--duration\", \"1\", \"--rate\", \"10\", \"--done\", \"%s\"]}",
		 sim, path_in("done"));
	CHECK(run_backend("energy", conf, path_in("done"), now - 3000000000ll, now, &m, &err) == KVB_OK);
	CHECK(m.n == 0); /* no energy 0 J, no power_mean 0 mW */
	w = witness(&m, "energy channel ch0");
	CHECK(w && w->verdict == KVB_WIT_REFUSED);
	if (w)
		CHECK_STR(w->observed, "no sample in the 3.00 s window");
	kvb_metrics_release(&m);
}

static void bad_case(const char *type, const char *fmt_args, const char *expect)
{
	struct kvb_metrics m;
	struct kvb_error err;
	char conf[2048];
	kvb_metrics_init(&m);
	snprintf(conf, sizeof(conf), "{\"type\": \"%s\", %s}", type, fmt_args);
	CHECK(run_backend("bad", conf, path_in("done"), 0, 0, &m, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, expect);
	CHECK(m.n == 0);
	kvb_metrics_release(&m);
}

static void test_meters__bad_probe_data_is_an_error_with_line(void)
{
	char args[2048];
	setup_once();
	/* rate 10 for 2 s: 21 rows; the bad one is row 10, i.e. line 12 after the header. */
	snprintf(args, sizeof(args),
		 "\"command\": [\"%s\", \"csv\", \"--rate\", \"10\", \"--duration\", \"2\", \"--channels\", \"2\","
		 " \"--bad\", \"truncated\", \"--done\", \"%s\"]",
		 sim, path_in("done"));
	bad_case("csv-command", args, "bad.out:12: truncated line: 2 fields, the header has 3");
	snprintf(args, sizeof(args),
		 "\"rate_hz\": 10, \"command\": [\"%s\", \"monsoon\", \"--rate\", \"10\", \"--duration\", \"2\","
		 " \"--bad\", \"nan\", \"--done\", \"%s\"]",
		 sim, path_in("done"));
	bad_case("monsoon", args, "bad.out:11: column 1: 'nan' is not a finite number");
	snprintf(args, sizeof(args),
		 "\"command\": [\"%s\", \"aep\", \"--rate\", \"10\", \"--duration\", \"2\", \"--bad\", \"nonmono\","
		 " \"--done\", \"%s\"]",
		 sim, path_in("done"));
	bad_case("aep", args, "bad.out:15: time goes backwards");
	snprintf(args, sizeof(args),
		 "\"channels\": {\"gpu\": \"ch2\"}, \"command\": [\"%s\", \"csv\", \"--channels\", \"3\", \"--bad\", \"missing\","
		 " \"--rate\", \"10\", \"--done\", \"%s\"]",
		 sim, path_in("done"));
	bad_case("csv-command", args, "bad.out:1: channel 'gpu' (column 'ch2') is missing from the header (columns: ch0, ch1)");
	snprintf(args, sizeof(args), "\"command\": [\"%s\", \"csv\", \"--bad\", \"empty\", \"--done\", \"%s\"]", sim,
		 path_in("done"));
	bad_case("csv-command", args, "bad.out: no samples (empty file)");
}

/* Starts a csv-command meter with conf_json; KVB_OK or the start error (the meter is stopped either way). */
static int start_meter(const char *conf_json, struct kvb_error *err, off_t *out_bytes)
{
	cJSON *conf = cJSON_Parse(conf_json);
	const struct kvb_instrument_ops *ops = kvb_instrument_find("csv-command");
	struct kvb_metrics m;
	struct kvb_instr_ctx c = { .name = "ready", .conf = conf, .target = &target, .plat = &plat,
				   .artifact_dir = path_in("art"), .remote_dir = path_in("remote"), .out = &m };
	struct stat st;
	struct kvb_error ignore;
	int rc;
	kvb_metrics_init(&m);
	kvb_error_clear(err);
	unlink(path_in("art/ready.out"));
	rc = ops->setup(&c, err);
	if (!rc)
		rc = ops->start(&c, err);
	*out_bytes = stat(path_in("art/ready.out"), &st) ? -1 : st.st_size;
	if (!rc)
		ops->stop(&c, &ignore);
	ops->teardown(&c);
	kvb_metrics_release(&m);
	cJSON_Delete(conf);
	return rc;
}

static void test_meters__ready_timeout_waits_for_the_first_output(void)
{
	struct kvb_error err;
	char conf[2048];
	off_t bytes;
	uint64_t t0;
	setup_once();
	/* A meter that needs 400 ms before it records: start returns once it has written. */
	snprintf(conf, sizeof(conf),
		 "{\"type\": \"csv-command\", \"ready_timeout_ms\": 20000, \"command\": [\"sh\", \"-c\","
		 " \"sleep 0.4; exec \\\"$0\\\" csv --done \\\"$1\\\"\", \"%s\", \"%s\"]}",
		 sim, path_in("done-ready"));
	t0 = kvb_mono_ns();
	CHECK(start_meter(conf, &err, &bytes) == KVB_OK);
	CHECK(kvb_mono_ns() - t0 >= 400000000u);
	CHECK(bytes > 0);  /* recording (a stat may catch the sim's one big write half done) */
	if (err.msg[0])
		fprintf(stderr, "%s\n", err.msg);
	/* A meter that records nothing: the job cannot start, and the error says why. */
	snprintf(conf, sizeof(conf),
		 "{\"type\": \"csv-command\", \"ready_timeout_ms\": 300, \"command\": [\"%s\", \"csv\", \"--bad\","
		 " \"empty\", \"--done\", \"%s\"]}",
		 sim, path_in("done-ready"));
	t0 = kvb_mono_ns();
	CHECK(start_meter(conf, &err, &bytes) == KVB_ETARGET);
	CHECK(kvb_mono_ns() - t0 >= 300000000u);
	CHECK(!strncmp(err.msg, "meter wrote nothing to '", 24)); /* no instance name: the session adds it */
	CHECK_CONTAINS(err.msg, "ready.out' within ready_timeout_ms 300");
	/* A meter that exits at once: its status and its stderr, not a timeout. */
	snprintf(conf, sizeof(conf),
		 "{\"type\": \"csv-command\", \"ready_timeout_ms\": 60000, \"command\": [\"%s\", \"nosuch\"]}", sim);
	t0 = kvb_mono_ns();
	CHECK(start_meter(conf, &err, &bytes) == KVB_ETARGET);
	CHECK(kvb_mono_ns() - t0 < 50000000000ull);
	CHECK_CONTAINS(err.msg, "meter ended before writing anything to '");
	CHECK_CONTAINS(err.msg, "(exit status 2): usage: probe_sim");
	/* Without the key the start does not wait (the key's default is 0): a meter that would
	 * record only once a file appears that nobody creates has written nothing when start returns. */
	snprintf(conf, sizeof(conf),
		 "{\"type\": \"csv-command\", \"command\": [\"sh\", \"-c\", \"while [ ! -e \\\"$1\\\" ]; do sleep 0.05;"
		 " done; exec \\\"$0\\\" csv\", \"%s\", \"%s\"]}",
		 sim, path_in("never"));
	CHECK(start_meter(conf, &err, &bytes) == KVB_OK);
	CHECK(bytes == 0);
}

static void set_counters(const char *a57, const char *a53, const char *sys)
{
	write_file(path_in("juno/sys/class/hwmon/hwmon0/energy1_input"), a57);
	write_file(path_in("juno/sys/class/hwmon/hwmon0/energy1_label"), "A57\n");
	write_file(path_in("juno/sys/class/hwmon/hwmon0/energy2_input"), a53);
	write_file(path_in("juno/sys/class/hwmon/hwmon0/energy2_label"), "A53\n");
	write_file(path_in("juno/sys/class/hwmon/hwmon1/energy1_input"), sys);
	write_file(path_in("juno/sys/class/hwmon/hwmon1/energy1_label"), "SYS\n");
	write_file(path_in("juno/sys/class/hwmon/hwmon1/power1_input"), "1234\n");
}

static void test_juno_hwmon__energy_is_counter_delta(void)
{
	const struct kvb_instrument_ops *ops = kvb_instrument_find("juno-hwmon");
	struct kvb_metrics m;
	struct kvb_error err;
	char conf[1024];
	cJSON *cj;
	setup_once();
	set_counters("1000000\n", "5000\n", "123456789\n");
	snprintf(conf, sizeof(conf),
		 "{\"type\": \"juno-hwmon\", \"channels\": {\"big\": \"A57\", \"little\": \"A53\","
		 " \"sys\": \"SYS\"}, \"sums\": {\"total\": [\"big\", \"little\", \"sys\"]}}");
	set_sysfs_root("juno");
	cj = cJSON_Parse(conf);
	struct kvb_instr_ctx c = { .name = "juno", .conf = cj, .target = &target, .plat = &plat,
				   .artifact_dir = path_in("art"), .remote_dir = path_in("remote"), .out = &m };
	kvb_metrics_init(&m);
	CHECK(ops->setup(&c, &err) == KVB_OK);
	CHECK(ops->start(&c, &err) == KVB_OK);
	set_counters("3500000\n", "505000\n", "124456789\n");
	CHECK(ops->stop(&c, &err) == KVB_OK);
	CHECK(ops->collect(&c, &err) == KVB_OK);
	ops->teardown(&c);
	CHECK_NEAR(metric(&m, "energy", "chan_name", "big"), 2.5, 1e-12);
	CHECK_NEAR(metric(&m, "energy", "chan_name", "little"), 0.5, 1e-12);
	CHECK_NEAR(metric(&m, "energy", "chan_name", "sys"), 1.0, 1e-12);
	CHECK_NEAR(metric(&m, "energy", "chan_name", "total"), 4.0, 1e-12);
	CHECK(metric(&m, "power_mean", "chan_name", "big") > 0);
	kvb_metrics_release(&m);
	/* A counter that went backwards (a reset: hwmon declares no wrap point) refuses its channel and
	 * the sum naming it, never a negative energy; the other channels stand (issue 40: before, the
	 * whole instrument failed). */
	kvb_metrics_init(&m);
	CHECK(ops->setup(&c, &err) == KVB_OK);
	CHECK(ops->start(&c, &err) == KVB_OK);
	set_counters("10\n", "605000\n", "124456789\n");
	CHECK(ops->stop(&c, &err) == KVB_OK);
	CHECK(ops->collect(&c, &err) == KVB_OK);
	CHECK(isnan(metric(&m, "energy", "chan_name", "big")));
	CHECK(isnan(metric(&m, "energy", "chan_name", "total")));
	CHECK_NEAR(metric(&m, "energy", "chan_name", "little"), 0.1, 1e-12);
	{
		const struct kvb_witness *w = witness(&m, "juno channel big");
		CHECK(w && w->verdict == KVB_WIT_REFUSED);
		if (w)
			CHECK_CONTAINS(w->detail, "went back from 3500000 to 10 uJ between the readings at the start of the job");
	}
	ops->teardown(&c);
	kvb_metrics_release(&m);
	/* A counter that did not move while the job ran (firmware updating it less often than the job
	 * lasted): refused, and so is the sum naming it; never 0 J. The others stand. */
	kvb_metrics_init(&m);
	set_counters("1000000\n", "5000\n", "123456789\n");
	CHECK(ops->setup(&c, &err) == KVB_OK);
	CHECK(ops->start(&c, &err) == KVB_OK);
	set_counters("3500000\n", "5000\n", "124456789\n");
	CHECK(ops->stop(&c, &err) == KVB_OK);
	CHECK(ops->collect(&c, &err) == KVB_OK);
	ops->teardown(&c);
	CHECK(isnan(metric(&m, "energy", "chan_name", "little")));
	CHECK(isnan(metric(&m, "energy", "chan_name", "total")));
	CHECK_NEAR(metric(&m, "energy", "chan_name", "big"), 2.5, 1e-12);
	{
		const struct kvb_witness *w = witness(&m, "juno channel little");
		CHECK(w && w->verdict == KVB_WIT_REFUSED);
		if (w)
			CHECK_CONTAINS(w->detail, "the counter did not move in ");
		w = witness(&m, "juno sum total");
		CHECK(w && w->verdict == KVB_WIT_REFUSED);
		w = witness(&m, "juno channel big");
		CHECK(w && w->verdict == KVB_WIT_OK);
	}
	kvb_metrics_release(&m);
	set_sysfs_root(NULL); /* the next test reads the real /proc and /sys */
	cJSON_Delete(cj);
}

/* Juno r2, mainline scpi-hwmon (WA3 #150): hwmon name scpi_sensors, labels BOARD_ENERGY_*; or the older
 * Linaro driver's labels (LISA PR #97) with the attributes under hwmonN/device/. */
static void juno_tree(const char *dir, int older, const char *big, const char *little, const char *gpu, const char *sys)
{
	static const char *const mainline[] = { "BOARD_ENERGY_BIG", "BOARD_ENERGY_LITTLE", "BOARD_ENERGY_GPU", "BOARD_ENERGY_SYS" };
	static const char *const linaro[] = { "a57_energy", "a53_energy", "gpu_energy", "sys_energy" };
	const char *vals[] = { big, little, gpu, sys };
	char rel[256];
	snprintf(rel, sizeof(rel), "%s/sys/class/hwmon/hwmon0/name", dir);
	write_file(path_in(rel), "scpi_sensors\n");
	for (int i = 0; i < 4; i++) {
		char lab[64];
		snprintf(rel, sizeof(rel), "%s/sys/class/hwmon/hwmon0/%senergy%d_input", dir, older ? "device/" : "", i + 1);
		write_file(path_in(rel), vals[i]);
		snprintf(rel, sizeof(rel), "%s/sys/class/hwmon/hwmon0/%senergy%d_label", dir, older ? "device/" : "", i + 1);
		snprintf(lab, sizeof(lab), "%s\n", older ? linaro[i] : mainline[i]);
		write_file(path_in(rel), lab);
	}
}

static int juno_run(const char *dir, int older, const char *chans, struct kvb_metrics *m, struct kvb_error *err)
{
	const struct kvb_instrument_ops *ops = kvb_instrument_find("juno-hwmon");
	char conf[1024];
	int rc;
	cJSON *cj;
	snprintf(conf, sizeof(conf), "{\"type\": \"juno-hwmon\", \"channels\": %s}", chans);
	set_sysfs_root(dir);
	cj = cJSON_Parse(conf);
	struct kvb_instr_ctx c = { .name = "juno", .conf = cj, .target = &target, .plat = &plat,
				   .artifact_dir = path_in("art"), .remote_dir = path_in("remote"), .out = m };
	juno_tree(dir, older, "1000000\n", "2000000\n", "3000000\n", "4000000\n");
	rc = ops->setup(&c, err);
	if (!rc)
		rc = ops->start(&c, err);
	juno_tree(dir, older, "1250000\n", "2100000\n", "3010000\n", "5000000\n");
	if (!rc)
		rc = ops->stop(&c, err);
	if (!rc)
		rc = ops->collect(&c, err);
	ops->teardown(&c);
	set_sysfs_root(NULL); /* the next test reads the real /proc and /sys */
	cJSON_Delete(cj);
	return rc;
}

static void test_juno_hwmon__mainline_and_older_labels_and_device_layout(void)
{
	const char *chans = "{\"big\": \"BOARD_ENERGY_BIG\", \"little\": \"BOARD_ENERGY_LITTLE\", \"gpu\": \"BOARD_ENERGY_GPU\","
			    " \"sys\": \"BOARD_ENERGY_SYS\"}";
	struct kvb_metrics m;
	struct kvb_error err;
	setup_once();
	for (int older = 0; older < 2; older++) {
		kvb_metrics_init(&m);
		CHECK(juno_run(older ? "junoold" : "junomain", older, chans, &m, &err) == KVB_OK);
		/* uJ deltas: 250000, 100000, 10000, 1000000 */
		CHECK_NEAR(metric(&m, "energy", "chan_name", "big"), 0.25, 1e-12);
		CHECK_NEAR(metric(&m, "energy", "chan_name", "little"), 0.1, 1e-12);
		CHECK_NEAR(metric(&m, "energy", "chan_name", "gpu"), 0.01, 1e-12);
		CHECK_NEAR(metric(&m, "energy", "chan_name", "sys"), 1.0, 1e-12);
		kvb_metrics_release(&m);
	}
	/* labels that are not there: the error lists what was found */
	kvb_metrics_init(&m);
	CHECK(juno_run("junomain", 0, "{\"big\": \"A57\"}", &m, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "channel 'big': no energy counter labelled 'A57'; labels found: BOARD_ENERGY_BIG "
				"(hwmon0/energy1), BOARD_ENERGY_LITTLE (hwmon0/energy2), BOARD_ENERGY_GPU (hwmon0/energy3), "
				"BOARD_ENERGY_SYS (hwmon0/energy4)");
	kvb_metrics_release(&m);
}

static void cpu_tree(const char *little_tis, const char *big_tis, const char *stat)
{
	write_file(path_in("cpu/sys/devices/system/cpu/cpu0/cpufreq/stats/time_in_state"), little_tis);
	write_file(path_in("cpu/sys/devices/system/cpu/cpu2/cpufreq/stats/time_in_state"), big_tis);
	write_file(path_in("cpu/proc/stat"), stat);
}

static void run_two_snapshots(const char *type, const char *extra, struct kvb_metrics *m, struct kvb_error *err, int *rc)
{
	const struct kvb_instrument_ops *ops = kvb_instrument_find(type);
	char conf[1024];
	cJSON *cj;
	snprintf(conf, sizeof(conf), "{\"type\": \"%s\"%s}", type, extra);
	set_sysfs_root("cpu");
	cj = cJSON_Parse(conf);
	struct kvb_instr_ctx c = { .name = type, .conf = cj, .target = &target, .plat = &plat,
				   .artifact_dir = path_in("art"), .remote_dir = path_in("remote"), .out = m };
	cpu_tree("500000 100\n750000 0\n1000000 200\n", "1000000 5\n2000000 7\n",
		 "cpu  1 1 1 1\ncpu0 100 0 0 1000 0 0 0 0\ncpu1 100 0 0 1000\ncpu2 100 0 0 1000\ncpu3 1 0 0 1000\n");
	*rc = ops->setup(&c, err);
	if (!*rc)
		*rc = ops->start(&c, err);
	/* little: 20/10/10 x 10 ms at 500/750/1000 MHz; big: 50 at 2 GHz. Busy: cpu0 +100, cpu1 +50, cpu2 +200 ticks. */
	cpu_tree("500000 120\n750000 10\n1000000 210\n", "1000000 5\n2000000 57\n",
		 "cpu  1 1 1 1\ncpu0 150 0 40 1000 0 10 0 0\ncpu1 150 0 0 1100\ncpu2 300 0 0 1000\ncpu3 1 0 0 1200\n");
	kvb_sleep_ms(20);
	if (!*rc)
		*rc = ops->stop(&c, err);
	if (!*rc)
		*rc = ops->collect(&c, err);
	ops->teardown(&c);
	set_sysfs_root(NULL); /* the next test reads the real /proc and /sys */
	cJSON_Delete(cj);
}

static void test_cpufreq__mean_frequency_and_residency_per_cluster(void)
{
	struct kvb_metrics m;
	struct kvb_error err;
	int rc;
	setup_once();
	kvb_metrics_init(&m);
	run_two_snapshots("cpufreq", "", &m, &err, &rc);
	CHECK(rc == KVB_OK);
	CHECK_NEAR(metric(&m, "freq_mean", "cluster", "little"), 687.5, 1e-9);
	CHECK_NEAR(metric(&m, "freq_mean", "cluster", "big"), 2000, 1e-9);
	CHECK_NEAR(metric(&m, "freq_residency", "freq_mhz", "500"), 50, 1e-9);
	CHECK_NEAR(metric(&m, "freq_residency", "freq_mhz", "750"), 25, 1e-9);
	kvb_metrics_release(&m);
}

static void test_model__estimate_from_busy_time_and_energy_model(void)
{
	struct kvb_metrics m;
	struct kvb_error err;
	int rc;
	setup_once();
	kvb_metrics_init(&m);
	run_two_snapshots("model", ", \"sums\": {\"cpus\": [\"little\", \"big\"]}", &m, &err, &rc);
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	CHECK(rc == KVB_OK);
	/* little: busy 1.5 s x (0.5 x 100 + 0.25 x 200 (interpolated at 750 MHz) + 0.25 x 300) mW = 0.2625 J */
	CHECK_NEAR(metric(&m, "energy", "chan_name", "little"), 0.2625, 1e-12);
	/* big: busy 2 s x 1500 mW = 3 J */
	CHECK_NEAR(metric(&m, "energy", "chan_name", "big"), 3.0, 1e-12);
	CHECK_NEAR(metric(&m, "energy", "chan_name", "cpus"), 3.2625, 1e-12);
	CHECK_NEAR(metric(&m, "energy", "estimated", "true"), 0.2625, 1e-12);
	CHECK_NEAR(metric(&m, "power_mean", "estimated", "true"), metric(&m, "power_mean", "chan_name", "little"), 0);
	kvb_metrics_release(&m);
}

static volatile int burn_stop;
static void *burn(void *arg)
{
	volatile unsigned long x = 0;
	(void)arg;
	while (!burn_stop)
		x++;
	return NULL;
}

static void test_util__busy_cpu_shows_high_utilisation(void)
{
	const struct kvb_instrument_ops *ops = kvb_instrument_find("util");
	cJSON *cj = cJSON_Parse("{\"type\": \"util\", \"interval_ms\": 50}");
	struct kvb_metrics m;
	struct kvb_error err;
	pthread_t th;
	double best = 0;
	setup_once();
	struct kvb_instr_ctx c = { .name = "util", .conf = cj, .target = &target, .plat = &plat,
				   .artifact_dir = path_in("art"), .remote_dir = path_in("remote"), .out = &m };
	kvb_metrics_init(&m);
	CHECK(ops->setup(&c, &err) == KVB_OK);
	CHECK(ops->start(&c, &err) == KVB_OK);
	burn_stop = 0;
	pthread_create(&th, NULL, burn, NULL);
	kvb_sleep_ms(600);
	burn_stop = 1;
	pthread_join(th, NULL);
	CHECK(ops->stop(&c, &err) == KVB_OK);
	CHECK(ops->collect(&c, &err) == KVB_OK);
	ops->teardown(&c);
	for (size_t i = 0; i < m.n; i++) {
		CHECK(m.v[i].value >= 0 && m.v[i].value <= 100);
		if (!strcmp(m.v[i].name, "util_max") && m.v[i].value > best)
			best = m.v[i].value;
	}
	CHECK(m.n >= 3 && m.n % 3 == 0);
	CHECK(best >= 50);  /* one CPU ran the spinning thread for whole intervals */
	kvb_metrics_release(&m);
	cJSON_Delete(cj);
}

/* Snapshots the util loop wrote (its "---" lines) in the local target's remote file. */
static int loop_snapshots(const char *remote_file)
{
	struct kvb_buf b = KVB_BUF_INIT;
	int n = 0;
	if (!kvb_buf_read_file(&b, remote_file) && b.data)
		for (const char *l = b.data; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
			n += !strncmp(l, "---\n", 4);
	kvb_buf_release(&b);
	return n;
}

/*
 * util on a board whose `sleep` has no fractions: tests/sim/sleep_nofrac.sh first in PATH as
 * `sleep` (and `usleep`), behaving as AOSP toolbox's or busybox's without FEATURE_FLOAT_SLEEP.
 */
static void util_on_old_sleep(const char *mode, struct kvb_metrics *m, int *snapshots)
{
	const char *env_path = getenv("PATH");
	char bin[600], *old_path = kvb_xstrdup(env_path ? env_path : "/usr/bin:/bin"), *path, rel[600], script[PATH_MAX];
	struct kvb_error err;
	int64_t win;
	const char *src = getenv("KVB_SOURCE_DIR");
	snprintf(bin, sizeof(bin), "%s", path_in(mode));
	snprintf(rel, sizeof(rel), "%s/tests/sim/sleep_nofrac.sh", src ? src : ".");
	if (!realpath(rel, script))
		fprintf(stderr, "no %s\n", rel);
	kvb_mkdir_p(bin, 0755);
	symlink(script, path_in("toolbox/sleep"));
	symlink(script, path_in("busybox/sleep"));
	symlink(script, path_in("busybox/usleep"));
	path = kvb_xasprintf("%s:%s", bin, old_path);
	setenv("PATH", path, 1);
	setenv("KVB_FAKE_SLEEP", mode, 1);
	unlink(path_in("remote/util-stat.txt"));
	CHECK(run_backend_window_ok(run_window("util", "{\"type\": \"util\", \"interval_ms\": 100}", 1500, m, &err, &win),
				    &err));
	setenv("PATH", old_path, 1);
	unsetenv("KVB_FAKE_SLEEP");
	*snapshots = loop_snapshots(path_in("remote/util-stat.txt"));
	free(path);
	free(old_path);
}

static void test_util__a_sleep_without_fractions_is_not_a_busy_loop(void)
{
	struct kvb_metrics m;
	const struct kvb_witness *w;
	int n;
	setup_once();
	/* toolbox: "sleep 0.100" is sleep(0), exit 0; no usleep: whole seconds, said by a changed witness */
	kvb_metrics_init(&m);
	util_on_old_sleep("toolbox", &m, &n);
	CHECK(n >= 1 && n <= 4); /* the old loop read /proc/stat hundreds of times in 1.5 s */
	w = witness(&m, "util /proc/stat sampler");
	CHECK(w && w->verdict == KVB_WIT_CHANGED);
	if (w) {
		CHECK_CONTAINS(w->observed, "sleep 1 (neither sleep 0.2 nor usleep 200000 slept 0.2 s");
		CHECK_CONTAINS(w->detail, "this board's sleep has no fractions");
		CHECK_CONTAINS(w->detail, "sampled every 1 s instead of every 100 ms");
	}
	CHECK(!isnan(metric(&m, "util_mean", "cpu", "0"))); /* start and stop snapshots still give util */
	kvb_metrics_release(&m);

	/* busybox without FEATURE_FLOAT_SLEEP: "invalid number", exit 1; its usleep keeps the interval */
	kvb_metrics_init(&m);
	util_on_old_sleep("busybox", &m, &n);
	CHECK(n >= 2 && n <= 20);
	w = witness(&m, "util /proc/stat sampler");
	/* ok, or changed when this loaded host made each read slower than 220 ms: never a busy loop */
	CHECK(w && (w->verdict == KVB_WIT_OK || w->verdict == KVB_WIT_CHANGED));
	if (w)
		CHECK_CONTAINS(w->observed, "(usleep 100000)");
	kvb_metrics_release(&m);

	/* this host's sleep has fractions: the plain loop, its interval witnessed */
	kvb_metrics_init(&m);
	{
		struct kvb_error err;
		int64_t win;
		unlink(path_in("remote/util-stat.txt"));
		CHECK(run_backend_window_ok(
			run_window("util", "{\"type\": \"util\", \"interval_ms\": 100}", 1500, &m, &err, &win), &err));
	}
	w = witness(&m, "util /proc/stat sampler");
	CHECK(w && (w->verdict == KVB_WIT_OK || w->verdict == KVB_WIT_CHANGED));
	if (w)
		CHECK_CONTAINS(w->observed, "(sleep 0.100)");
	kvb_metrics_release(&m);
}

static void test_dmesg__new_lines_kept_and_warnings_counted(void)
{
	const struct kvb_instrument_ops *ops = kvb_instrument_find("dmesg");
	char conf[512];
	struct kvb_metrics m;
	struct kvb_error err;
	struct kvb_buf log = KVB_BUF_INIT;
	cJSON *cj;
	FILE *f;
	setup_once();
	write_file(path_in("kmsg"), "[    0.1] boot\n[    0.2] WARNING: old, before the job\n[    0.3] ready\n");
	snprintf(conf, sizeof(conf), "{\"type\": \"dmesg\", \"command\": [\"cat\", \"%s\"]}", path_in("kmsg"));
	cj = cJSON_Parse(conf);
	struct kvb_instr_ctx c = { .name = "dmesg", .conf = cj, .target = &target, .plat = &plat,
				   .artifact_dir = path_in("art"), .remote_dir = path_in("remote"), .out = &m };
	kvb_metrics_init(&m);
	CHECK(ops->setup(&c, &err) == KVB_OK);
	CHECK(ops->start(&c, &err) == KVB_OK);
	f = fopen(path_in("kmsg"), "a");
	fputs("[    5.0] WARNING: CPU: 1 PID: 42 at kernel/sched/core.c:100\n[    5.1] fine\n"
	      "[    5.2] BUG: scheduling while atomic\n", f);
	fclose(f);
	CHECK(ops->stop(&c, &err) == KVB_OK);
	CHECK(ops->collect(&c, &err) == KVB_OK);
	ops->teardown(&c);
	CHECK(m.n == 1 && !strcmp(m.v[0].name, "dmesg_warnings"));
	CHECK_NEAR(m.v[0].value, 2, 0);
	CHECK(m.nart == 1);
	kvb_buf_read_file(&log, m.art[0].path);
	CHECK_STR(log.data, "[    5.0] WARNING: CPU: 1 PID: 42 at kernel/sched/core.c:100\n[    5.1] fine\n"
			    "[    5.2] BUG: scheduling while atomic\n");
	kvb_buf_release(&log);
	kvb_metrics_release(&m);
	cJSON_Delete(cj);
}

/* Writes one record into the real /dev/kmsg (its own open: the kernel rate-limits per open file). */
static void kmsg_write(const char *msg)
{
	int fd = open("/dev/kmsg", O_WRONLY);
	char *line = kvb_xasprintf("%s\n", msg); /* without it the record stays open, unseen by readers */
	if (fd < 0 || write(fd, line, strlen(line)) < 0)
		perror("/dev/kmsg");
	free(line);
	if (fd >= 0)
		close(fd);
}

static int wait_for_text(const char *file, const char *needle);

/*
 * 200 records of 900 bytes: 180 KB, more than this kernel's 128 KiB ring (CONFIG_LOG_BUF_SHIFT=17).
 * With reader_file, every 50 records (45 KB) wait until the reader has read the last one: a log
 * that grows no faster than a reader can follow (a gate, so a loaded host cannot make it lose).
 */
static void kmsg_flood(const char *tag, const char *reader_file)
{
	char line[1000];
	for (int i = 0; i < 200; i++) {
		int n = snprintf(line, sizeof(line), "kvbench test filler %s %03d ", tag, i);
		memset(line + n, 'f', 900 - (size_t)n);
		line[900] = '\0';
		kmsg_write(line);
		if (reader_file && i % 50 == 49) {
			line[n] = '\0';
			CHECK(wait_for_text(reader_file, line));
		}
	}
}

/* The pids of the processes named comm whose stdout is path (the /dev/kmsg reader's cat). */
static int procs_writing(const char *comm, const char *path, pid_t *out, int max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d)) && n < max) {
		char p[300], link[PATH_MAX], name[64] = "";
		ssize_t k;
		FILE *f;
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(p, sizeof(p), "/proc/%s/fd/1", e->d_name);
		k = readlink(p, link, sizeof(link) - 1);
		if (k <= 0)
			continue;
		link[k] = '\0';
		snprintf(p, sizeof(p), "/proc/%s/comm", e->d_name);
		if ((f = fopen(p, "r"))) {
			if (fgets(name, sizeof(name), f))
				name[strcspn(name, "\n")] = '\0';
			fclose(f);
		}
		if (!strcmp(link, path) && !strcmp(name, comm))
			out[n++] = (pid_t)atol(e->d_name);
	}
	if (d)
		closedir(d);
	return n;
}

/* Waits (up to 20 s) until file holds needle: the reader has read the start marker. */
static int wait_for_text(const char *file, const char *needle)
{
	for (int i = 0; i < 2000; i++) {
		struct kvb_buf b = KVB_BUF_INIT;
		int hit = !kvb_buf_read_file(&b, file) && b.data && strstr(b.data, needle);
		kvb_buf_release(&b);
		if (hit)
			return 1;
		kvb_sleep_ms(10);
	}
	return 0;
}

/*
 * A job on this machine's real /dev/kmsg (root): a warning, a flood that wraps the 128 KiB ring,
 * a second warning. stop_reader: the reader is SIGSTOPped through the flood (overtaken by the ring).
 */
static void kmsg_job(int stop_reader, struct kvb_metrics *m, struct kvb_error *err, int *rc)
{
	const struct kvb_instrument_ops *ops = kvb_instrument_find("dmesg");
	cJSON *cj = cJSON_Parse("{\"type\": \"dmesg\"}");
	struct kvb_instr_ctx c = { .name = "dmesg", .conf = cj, .target = &target, .plat = &plat,
				   .artifact_dir = path_in("art"), .remote_dir = path_in("remote"), .out = m };
	char tag[64], w[256], remote[600];
	pid_t pids[8];
	int np = 0;
	snprintf(tag, sizeof(tag), "%ld-%lld", (long)getpid(), (long long)kvb_wall_ns());
	snprintf(remote, sizeof(remote), "%s", path_in("remote/dmesg-kmsg.txt"));
	unlink(remote);
	*rc = ops->setup(&c, err);
	if (!*rc)
		*rc = ops->start(&c, err);
	if (!*rc && stop_reader) {
		CHECK(wait_for_text(remote, "kvbench: dmesg start "));
		np = procs_writing("cat", remote, pids, 8);
		CHECK(np == 1);
		for (int i = 0; i < np; i++)
			kill(pids[i], SIGSTOP);
	}
	snprintf(w, sizeof(w), "WARNING: CPU: 0 PID: 1 at kvbench test %s (before the flood)", tag);
	kmsg_write(w);
	kmsg_flood(tag, stop_reader ? NULL : remote);
	for (int i = 0; i < np; i++)
		kill(pids[i], SIGCONT);
	snprintf(w, sizeof(w), "BUG: kvbench test %s (after the flood)", tag);
	kmsg_write(w);
	if (!*rc)
		*rc = ops->stop(&c, err);
	if (!*rc)
		*rc = ops->collect(&c, err);
	ops->teardown(&c);
	cJSON_Delete(cj);
}

static void test_dmesg__real_kmsg_keeps_every_line_through_a_wrap(void)
{
	/* WA3 #1114: the ring wraps during the job; dmesg at the stop no longer has the first warning */
	struct kvb_metrics m;
	struct kvb_error err;
	const struct kvb_witness *w;
	struct kvb_buf log = KVB_BUF_INIT;
	int rc;
	setup_once();
	if (access("/dev/kmsg", R_OK | W_OK)) {
		fprintf(stderr, "skipped: /dev/kmsg not readable and writable here\n");
		return;
	}
	kvb_metrics_init(&m);
	kmsg_job(0, &m, &err, &rc);
	CHECK(rc == KVB_OK);
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	CHECK_NEAR(metric_plain(&m, "dmesg_warnings"), 2, 0);
	w = witness(&m, "dmesg /dev/kmsg");
	CHECK(w && w->verdict == KVB_WIT_OK);
	if (w)
		CHECK_CONTAINS(w->observed, "records read, 0 lost, 2 warnings");
	CHECK(m.nart == 1);
	if (m.nart == 1) {
		kvb_buf_read_file(&log, m.art[0].path);
		CHECK_CONTAINS(log.data, "(before the flood)");
		CHECK_CONTAINS(log.data, "(after the flood)");
		CHECK(!strstr(log.data ? log.data : "", "kvbench: dmesg st")); /* the markers are not the job's */
	}
	kvb_buf_release(&log);
	kvb_metrics_release(&m);
}

static void test_dmesg__a_reader_overtaken_by_the_ring_refuses_the_count(void)
{
	struct kvb_metrics m;
	struct kvb_error err;
	const struct kvb_witness *w;
	int rc;
	setup_once();
	if (access("/dev/kmsg", R_OK | W_OK)) {
		fprintf(stderr, "skipped: /dev/kmsg not readable and writable here\n");
		return;
	}
	kvb_metrics_init(&m);
	kmsg_job(1, &m, &err, &rc);
	CHECK(rc == KVB_OK);
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	CHECK(isnan(metric_plain(&m, "dmesg_warnings"))); /* a count of what was left would look whole */
	w = witness(&m, "dmesg /dev/kmsg");
	CHECK(w && w->verdict == KVB_WIT_REFUSED);
	if (w) {
		CHECK_CONTAINS(w->detail, "dmesg_warnings not stored ("); /* 1 or 2 seen: SIGSTOP may land after a read */
		CHECK_CONTAINS(w->detail, "overwritten before they were read");
	}
	kvb_metrics_release(&m);
}

static void test_dmesg__a_log_without_timestamps_whose_last_line_repeats(void)
{
	const struct kvb_instrument_ops *ops = kvb_instrument_find("dmesg");
	char conf[512];
	struct kvb_metrics m;
	struct kvb_error err;
	const struct kvb_witness *w;
	cJSON *cj;
	FILE *f;
	setup_once();
	/* a kernel without printk time; the last line at the start comes again after a warning */
	write_file(path_in("kmsg-notime"), "Booting\neth0: link up\n");
	snprintf(conf, sizeof(conf), "{\"type\": \"dmesg\", \"command\": [\"cat\", \"%s\"]}", path_in("kmsg-notime"));
	cj = cJSON_Parse(conf);
	struct kvb_instr_ctx c = { .name = "dmesg", .conf = cj, .target = &target, .plat = &plat,
				   .artifact_dir = path_in("art"), .remote_dir = path_in("remote"), .out = &m };
	kvb_metrics_init(&m);
	CHECK(ops->setup(&c, &err) == KVB_OK);
	CHECK(ops->start(&c, &err) == KVB_OK);
	f = fopen(path_in("kmsg-notime"), "a");
	fputs("WARNING: CPU: 1 PID: 42 at kernel/sched/core.c:100\neth0: link up\n", f);
	fclose(f);
	CHECK(ops->stop(&c, &err) == KVB_OK);
	CHECK(ops->collect(&c, &err) == KVB_OK);
	ops->teardown(&c);
	CHECK_NEAR(metric_plain(&m, "dmesg_warnings"), 1, 0); /* 0 before: the last "eth0: link up" was the join */
	kvb_metrics_release(&m);

	/* the log wrapped past everything the start had: refused, not a count of the rest */
	kvb_metrics_init(&m);
	write_file(path_in("kmsg-notime"), "Booting\neth0: link up\n");
	c.out = &m;
	CHECK(ops->setup(&c, &err) == KVB_OK);
	CHECK(ops->start(&c, &err) == KVB_OK);
	write_file(path_in("kmsg-notime"), "BUG: late\nnew 2\n");
	CHECK(ops->stop(&c, &err) == KVB_OK);
	CHECK(ops->collect(&c, &err) == KVB_OK);
	ops->teardown(&c);
	CHECK(isnan(metric_plain(&m, "dmesg_warnings")));
	w = witness(&m, "dmesg dmesg");
	CHECK(w && w->verdict == KVB_WIT_REFUSED);
	if (w)
		CHECK_CONTAINS(w->detail, "the ring buffer wrapped past the start (or was cleared)");
	kvb_metrics_release(&m);
	cJSON_Delete(cj);
}

static void test_ftrace__records_or_says_why_not(void)
{
	struct kvb_metrics m;
	struct kvb_error err;
	int rc;
	setup_once();
	kvb_metrics_init(&m);
	rc = run_backend("ftrace", "{\"type\": \"ftrace\", \"events\": [\"sched:sched_switch\"], \"ready_timeout_ms\": 5000}",
			 NULL, 0, 0, &m, &err);
	if (rc) {
		/* No tracefs access (containers) or no trace-cmd: the message carries trace-cmd's reason. */
		CHECK_CONTAINS(err.msg, "trace-cmd");
		fprintf(stderr, "ftrace unavailable here: %s\n", err.msg);
	} else {
		CHECK(m.nart == 1 && !strcmp(m.art[0].kind, "ftrace") && m.art[0].bytes > 0);
	}
	kvb_metrics_release(&m);
}

/*
 * ftrace through tests/sim/trace_cmd_sim (trace-cmd record at its boundary; this machine cannot
 * write tracefs): what trace-cmd says it lost is a witness, and on a board whose `sleep` has no
 * fractions (sleep_nofrac.sh first in PATH) a trace-cmd that takes 0.5 s to start still starts.
 */
static void test_ftrace__lost_events_and_a_slow_start_on_a_toolbox_board(void)
{
	struct kvb_metrics m;
	struct kvb_error err;
	const struct kvb_witness *w;
	char conf[1024], tsim[600], rel[600], script[PATH_MAX];
	const char *src = getenv("KVB_SOURCE_DIR"), *env_path = getenv("PATH");
	char *old_path = kvb_xstrdup(env_path ? env_path : "/usr/bin:/bin"), *path;
	int rc;
	setup_once();
	snprintf(tsim, sizeof(tsim), "%s/tests/sim/trace_cmd_sim", getenv("KVB_BUILD_DIR") ? getenv("KVB_BUILD_DIR") : "build");
	snprintf(rel, sizeof(rel), "%s/tests/sim/sleep_nofrac.sh", src ? src : ".");
	if (!realpath(rel, script))
		fprintf(stderr, "no %s\n", rel);
	kvb_mkdir_p(path_in("toolbox"), 0755);
	symlink(script, path_in("toolbox/sleep"));
	path = kvb_xasprintf("%s:%s", path_in("toolbox"), old_path);
	setenv("PATH", path, 1);
	setenv("KVB_FAKE_SLEEP", "toolbox", 1);
	setenv("KVB_TRACE_START_MS", "500", 1);
	setenv("KVB_TRACE_LOST", "0:750319,1:0,2:12", 1);
	kvb_metrics_init(&m);
	snprintf(conf, sizeof(conf), "{\"type\": \"ftrace\", \"trace_cmd\": \"%s\", \"ready_timeout_ms\": 20000}", tsim);
	rc = run_backend("ftrace", conf, NULL, 0, 0, &m, &err);
	setenv("PATH", old_path, 1);
	unsetenv("KVB_FAKE_SLEEP");
	unsetenv("KVB_TRACE_START_MS");
	unsetenv("KVB_TRACE_LOST");
	CHECK(rc == KVB_OK); /* before: "trace-cmd did not start recording in time" after a few ms of sleep 0 */
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	CHECK(m.nart == 1);
	w = witness(&m, "ftrace trace buffer");
	CHECK(w && w->verdict == KVB_WIT_CHANGED);
	if (w) {
		CHECK_STR(w->observed, "750331 events lost (CPU 0: 750319, CPU 2: 12)");
		CHECK_CONTAINS(w->detail, "raise buffer_kb");
	}
	kvb_metrics_release(&m);
	free(path);
	free(old_path);
}

static void test_session__failing_instrument_keeps_workload_metrics(void)
{
	struct kvb_instr_set set;
	struct kvb_instr_job ij;
	struct kvb_metrics m;
	struct kvb_error err;
	char list_json[1024];
	cJSON *list;
	setup_once();
	/* Platform: energy (csv-command "probe_sim csv" not in PATH -> fails at start) and hw (no tree -> fails);
	 * the agenda disables hw and adds dmesg by type. */
	snprintf(list_json, sizeof(list_json), "[\"~hw\", \"dmesg\"]");
	list = cJSON_Parse(list_json);
	CHECK(kvb_instr_set_build(&set, &plat, list, NULL, &err) == KVB_OK);
	CHECK(set.n == 2);
	CHECK_STR(set.v[0].name, "energy");
	CHECK_STR(set.v[1].name, "dmesg");
	kvb_metrics_init(&m);
	kvb_instr_job_start(&ij, &set, &target, &plat, path_in("art"), path_in("remote"), &m);
	kvb_metrics_add(&m, "time", 0.5, "s", 1);  /* the workload */
	kvb_instr_job_stop(&ij);
	CHECK(kvb_instr_job_error(&ij) != NULL);
	CHECK_CONTAINS(kvb_instr_job_error(&ij), "instrument 'energy': starting meter command: cannot run 'probe_sim'");
	CHECK(ij.ctx[0].start_ns > 0 && ij.ctx[0].stop_ns >= ij.ctx[0].start_ns);
	CHECK(m.n >= 1 && !strcmp(m.v[0].name, "time"));
	kvb_instr_job_release(&ij);
	kvb_metrics_release(&m);
	kvb_instr_set_release(&set);
	cJSON_Delete(list);
	/* The agenda's settings by type: over the platform's instance of it (energy is a csv-command)
	   and over one the agenda enables by type (ftrace); a type the run does not enable is ignored */
	{
		cJSON *settings = cJSON_Parse("{\"csv-command\": {\"units\": \"mW\"}, \"ftrace\": {\"buffer_kb\": 4096},"
					      " \"cpufreq\": {}}");
		list = cJSON_Parse("[\"~hw\", \"ftrace\"]");
		CHECK(kvb_instr_set_build(&set, &plat, list, settings, &err) == KVB_OK);
		CHECK(set.n == 2);
		CHECK_STR(set.v[0].name, "energy");
		CHECK_STR(kvb_get_str(set.v[0].conf, "units", ""), "mW");
		CHECK(cJSON_GetObjectItem(set.v[0].conf, "command") != NULL); /* the platform's other keys stay */
		CHECK_STR(set.v[1].name, "ftrace");
		CHECK(kvb_get_int(set.v[1].conf, "buffer_kb", 0) == 4096);
		CHECK_STR(kvb_get_str(set.v[1].conf, "type", ""), "ftrace");
		kvb_instr_set_release(&set);
		cJSON_Delete(list);
		cJSON_Delete(settings);
	}
	/* Unknown names and keys are input errors before anything runs. */
	list = cJSON_Parse("[\"nosuch\"]");
	CHECK(kvb_instr_set_build(&set, &plat, list, NULL, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "unknown instrument 'nosuch'");
	kvb_instr_set_release(&set);
	cJSON_Delete(list);
}

static void test_session__window_is_the_workload_time(void)
{
	struct kvb_platform p2;
	struct kvb_diag d;
	struct kvb_instr_set set;
	struct kvb_instr_job ij;
	struct kvb_metrics m;
	struct kvb_error err;
	char yaml[2048];
	int64_t now = kvb_wall_ns();
	setup_once();
	/* A meter with absolute timestamps covering now-2 s .. now+8 s at 1 kHz, constant 1.5 W. */
	snprintf(yaml, sizeof(yaml),
		 "name: t2\nconnection: {type: local}\ninstruments:\n"
		 "  energy: {type: csv-command, command: [\"%s\", csv, --t0-ns, \"%lld\", --done, \"%s\"]}\n",
		 sim, (long long)(now - 2000000000ll), path_in("done"));
	write_file(path_in("p2/platform.yaml"), yaml);
	kvb_diag_init(&d, NULL);
	CHECK(kvb_platform_load(&p2, path_in("p2/platform.yaml"), &kvb_catalog, &d) == KVB_OK);
	kvb_diag_release(&d);
	CHECK(kvb_instr_set_build(&set, &p2, NULL, NULL, &err) == KVB_OK);
	kvb_metrics_init(&m);
	kvb_instr_job_start(&ij, &set, &target, &p2, path_in("art"), path_in("remote"), &m);
	wait_for(path_in("done"));
	kvb_sleep_ms(300);
	kvb_instr_job_stop(&ij);
	CHECK(kvb_instr_job_error(&ij) == NULL);
	{
		double window_s = (double)(ij.ctx[0].stop_ns - ij.ctx[0].start_ns) / 1e9;
		/* Within one 1 ms sample at each end. */
		CHECK_NEAR(metric(&m, "energy", "chan_name", "ch0"), 1.5 * window_s, 1.5 * 0.002);
		CHECK_NEAR(metric(&m, "power_mean", "chan_name", "ch0"), 1500, 1e-9);
	}
	kvb_instr_job_release(&ij);
	kvb_metrics_release(&m);
	kvb_instr_set_release(&set);
	kvb_platform_release(&p2);
}

#define TESTS                                                                                                          \
	T(test_csv_command__constant_and_step_power_give_15_joules)                                                   \
	T(test_meters__aep_monsoon_acme_give_15_joules)                                                                \
	T(test_meters__iio_capture_sim_writes_the_real_format)                                                       \
	T(test_meters__monsoon_sim_writes_monsoon_py_lines)                                                            \
	T(test_meters__absolute_times_cut_to_job_window)                                                               \
	T(test_meters__bad_probe_data_is_an_error_with_line)                                                           \
	T(test_meters__ready_timeout_waits_for_the_first_output)                                                       \
	T(test_meters__a_meter_that_flushes_only_on_sigint_gets_sigint_and_proves_its_window)                          \
	T(test_meters__a_meter_that_does_not_stop_is_killed_with_a_witness)                                            \
	T(test_meters__no_sample_in_the_window_is_refused_not_0_joules)                                                \
	T(test_juno_hwmon__energy_is_counter_delta)                                    \
	T(test_juno_hwmon__mainline_and_older_labels_and_device_layout)                                                                    \
	T(test_cpufreq__mean_frequency_and_residency_per_cluster)                                                      \
	T(test_model__estimate_from_busy_time_and_energy_model)                                                        \
	T(test_util__busy_cpu_shows_high_utilisation)                                                                  \
	T(test_util__a_sleep_without_fractions_is_not_a_busy_loop)                                                     \
	T(test_dmesg__new_lines_kept_and_warnings_counted)                                                             \
	T(test_dmesg__real_kmsg_keeps_every_line_through_a_wrap)                                                       \
	T(test_dmesg__a_reader_overtaken_by_the_ring_refuses_the_count)                                                \
	T(test_dmesg__a_log_without_timestamps_whose_last_line_repeats)                                                \
	T(test_ftrace__records_or_says_why_not)                                                                        \
	T(test_ftrace__lost_events_and_a_slow_start_on_a_toolbox_board)                                                \
	T(test_session__failing_instrument_keeps_workload_metrics)                                                     \
	T(test_session__window_is_the_workload_time)
#include "test_main.h"
