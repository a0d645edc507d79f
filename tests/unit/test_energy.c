/* Tests for energy samples: chunk codec, energy arithmetic, meter parsers and bad data, DB storage, export and import. */
#include "core/samples.h"
#include "core/util.h"
#include "instrument/energy_import.h"
#include "instrument/probe.h"
#include "store/energy.h"
#include "store/store.h"

#include "test.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[256];

static const char *tmp(const char *name)
{
	static char path[4][512];
	static int k;
	if (!tmpdir[0]) {
		snprintf(tmpdir, sizeof(tmpdir), "/tmp/kvb-test-energy-XXXXXX");
		if (!mkdtemp(tmpdir))
			abort();
	}
	k = (k + 1) % 4;
	snprintf(path[k], sizeof(path[k]), "%s/%s", tmpdir, name);
	return path[k];
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

static void test_chunk__round_trips_irregular_times_and_values(void)
{
	int64_t t[7] = { 1700000000000000000ll, 1700000000000100000ll, 1700000000000200000ll, 1700000000000200000ll,
			 1700000000000150000ll + 60000, 1700000000900000000ll, 1700000000900000001ll };
	float v[7] = { 1.5f, -2.25f, 0, 1e-7f, 3e9f, 1234.5f, 7 };
	int64_t t2[7];
	float v2[7];
	struct kvb_buf b = KVB_BUF_INIT;
	kvb_chunk_encode(&b, t, v, 7);
	CHECK(kvb_chunk_decode(b.data, b.len, t[0], 7, t2, v2) == 0);
	for (int i = 0; i < 7; i++) {
		CHECK(t2[i] == t[i]);
		CHECK(v2[i] == v[i]);
	}
	/* Damaged blobs are refused, not read past their end. */
	CHECK(kvb_chunk_decode(b.data, b.len - 1, t[0], 7, t2, v2) == KVB_ESTORE);
	b.data[0] = 9;
	CHECK(kvb_chunk_decode(b.data, b.len, t[0], 7, t2, v2) == KVB_ESTORE);
	kvb_buf_release(&b);
}

static void test_chunk__regular_clock_costs_five_bytes_a_sample(void)
{
	int64_t t[KVB_CHUNK_SAMPLES];
	float v[KVB_CHUNK_SAMPLES];
	struct kvb_buf b = KVB_BUF_INIT;
	for (int i = 0; i < KVB_CHUNK_SAMPLES; i++) {
		t[i] = 1700000000000000000ll + (int64_t)i * 100000;  /* 10 kHz */
		v[i] = (float)(1000 + i % 7);
	}
	kvb_chunk_encode(&b, t, v, KVB_CHUNK_SAMPLES);
	/* 1 + 4n + first delta (3 bytes) + n-2 zero delta-of-deltas. */
	CHECK(b.len == 1 + 4 * KVB_CHUNK_SAMPLES + 3 + (KVB_CHUNK_SAMPLES - 2));
	kvb_buf_release(&b);
}

/* Constant power at any rate gives P x duration: dividing by the rate, never multiplying. */
static void test_energy__constant_power_is_p_times_duration_at_any_rate(void)
{
	const double rates[] = { 10, 100, 10000 };
	for (int r = 0; r < 3; r++) {
		struct kvb_samples *s = kvb_samples_new();
		size_t c = kvb_samples_channel(s, "sys", "mW", "x");
		int64_t n = (int64_t)(10 * rates[r]);
		for (int64_t i = 0; i <= n; i++)
			kvb_samples_add(s, c, i * (int64_t)(1e9 / rates[r]), 1500.0);
		kvb_samples_finish(s);
		CHECK_NEAR(kvb_samples_energy_j(&s->ch[c]), 15.0, 1e-9);
		CHECK_NEAR(kvb_samples_mean(&s->ch[c]), 1500.0, 1e-9);
		CHECK(s->ch[c].n == (uint64_t)n + 1);
		CHECK(s->ch[c].nchunks == (size_t)((n + 1 + KVB_CHUNK_SAMPLES - 1) / KVB_CHUNK_SAMPLES));
		kvb_samples_free(s);
	}
}

static int parse_text(const char *text, struct kvb_probe_parse *p, struct kvb_samples **out, struct kvb_error *err)
{
	const char *path = tmp("in.txt");
	write_file(path, text);
	p->path = path;
	p->instrument = "t";
	*out = kvb_samples_new();
	return kvb_probe_parse_file(p, *out, NULL, err);
}

static void test_parse__csv_units_from_header_and_time_suffix(void)
{
	struct kvb_probe_parse p = { .format = kvb_probe_format_find("csv"), .base_ns = 1000 };
	struct kvb_samples *s;
	struct kvb_error err;
	/* time in ms; a(W) in W, b_mW in mW, c takes default units (mW here). */
	int rc = parse_text("time_ms,a(W),b_mW,c\n0,1,500,2\n1000,1,500,2\n2000,3,1500,4\n", &p, &s, &err);
	CHECK(rc == KVB_OK);
	CHECK(s->n == 3);
	CHECK_STR(s->ch[0].name, "a");
	CHECK_STR(s->ch[1].name, "b");
	/* a: 1 W for 1 s then 3 W for 1 s = 4 J; first sample at base_ns. */
	CHECK_NEAR(kvb_samples_energy_j(&s->ch[0]), 4.0, 1e-12);
	CHECK_NEAR(kvb_samples_energy_j(&s->ch[1]), 2.0, 1e-12);
	CHECK(s->ch[0].t_first_ns == 1000);
	CHECK(s->ch[0].t_last_ns == 1000 + 2000000000ll);
	/* c had no units and the default was W when parsed: 2 W, 4 W -> 6 J. */
	CHECK_NEAR(kvb_samples_energy_j(&s->ch[2]), 6.0, 1e-12);
	kvb_samples_free(s);
}

static void test_parse__absolute_times_are_cut_to_the_window(void)
{
	struct kvb_probe_parse p = { .format = kvb_probe_format_find("csv") };
	struct kvb_samples *s;
	struct kvb_error err;
	struct kvb_buf b = KVB_BUF_INIT;
	int64_t t0 = 1700000000000000000ll;
	kvb_buf_adds(&b, "time_ns,sys\n");
	for (int i = 0; i <= 100; i++)
		kvb_buf_addf(&b, "%lld,2\n", (long long)(t0 + i * 100000000ll));  /* 10 s at 10 Hz, 2 W */
	p.win_start_ns = t0 + 2000000000ll;
	p.win_stop_ns = t0 + 7000000000ll;
	CHECK(parse_text(b.data, &p, &s, &err) == KVB_OK);
	/* Samples at 2.0 .. 7.0 s kept: 51 samples, 50 intervals of 0.1 s at 2 W = 10 J. */
	CHECK(s->ch[0].n == 51);
	CHECK_NEAR(kvb_samples_energy_j(&s->ch[0]), 10.0, 1e-9);
	CHECK(s->ch[0].t_first_ns == t0 + 2000000000ll);
	kvb_samples_free(s);
	kvb_buf_release(&b);
}

static void check_bad(const char *f, const char *text, const cJSON *channels, const char *expect)
{
	struct kvb_probe_parse p = { .format = kvb_probe_format_find(f), .channels = channels, .rate_hz = 10, .chan_name = "c" };
	struct kvb_samples *s;
	struct kvb_error err;
	kvb_error_clear(&err);
	CHECK(parse_text(text, &p, &s, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, expect);
	kvb_samples_free(s);
}

static void test_parse__bad_data_names_file_and_line(void)
{
	cJSON *ch = cJSON_Parse("{\"big\": \"A57\"}");
	check_bad("csv", "time,a,b\n0,1,2\n1,1\n2,1,2\n", NULL, "in.txt:3: truncated line: 2 fields, the header has 3");
	check_bad("csv", "time,a\n0,1\n1,nan\n", NULL, "in.txt:3: column 2: 'nan' is not a finite number");
	check_bad("csv", "time,a\n0,1\n1,1\n0.5,1\n", NULL, "in.txt:4: time goes backwards");
	check_bad("csv", "time,A53\n0,1\n", ch, "in.txt:1: channel 'big' (column 'A57') is missing from the header");
	check_bad("csv", "", NULL, "in.txt: no samples (empty file)");
	check_bad("csv", "time,a\n", NULL, "in.txt: no samples (header only)");
	check_bad("acme", "timestamp_time_ms,bus_voltage\n1,2\n", NULL, "in.txt:1: no power column");
	check_bad("acme", "\"vbus mV\", \"power mW\"\n1.0, 2.0\n", NULL,
		  "in.txt:1: no time column (expected 'timestamp ms' (iio-capture) or 'timestamp_time_ms' (devlib); "
		  "columns: 'vbus mV', 'power mW')");
	check_bad("acme", "\"power kW\", \"timestamp ms\"\n1.0, 2.0\n", NULL, "power column 'power kW': unknown unit");
	/* The time column is found by name wherever it is, with its unit ("Time [ms]"). */
	{
		struct kvb_probe_parse p = { .format = kvb_probe_format_find("csv") };
		struct kvb_samples *s;
		struct kvb_error e;
		CHECK(parse_text("sys(W),\"Time [ms]\"\n1,0\n1,500\n3,1000\n", &p, &s, &e) == KVB_OK);
		CHECK(s->n == 1);
		CHECK_NEAR(kvb_samples_energy_j(&s->ch[0]), 2.0, 1e-12);  /* 1 W x 0.5 s + 3 W x 0.5 s */
		kvb_samples_free(s);
	}
	/* No column named as time: said so, not "time goes backwards" from a power column read as time. */
	check_bad("csv", "sys,gpu\n5,1\n3,1\n", NULL, "in.txt:1: no time column (expected time, time_s");
	check_bad("aep", "# c\ntime\tX(V)\tX(W)\n0.0\t5\t1\n0.1\t5\tinf\n", NULL, "in.txt:4: column 3");
	check_bad("monsoon", "1.0 0.2\n1.0\n", NULL, "in.txt:2: truncated line");
	cJSON_Delete(ch);
}

static void test_parse__last_line_cut_by_sigterm_is_dropped(void)
{
	struct kvb_probe_parse p = { .format = kvb_probe_format_find("csv") };
	struct kvb_samples *s;
	struct kvb_error err;
	struct kvb_probe_stats st;
	write_file(tmp("cut.csv"), "time,a\n0,1\n1,1\n2,1\n3,");
	p.path = tmp("cut.csv");
	p.instrument = "t";
	s = kvb_samples_new();
	CHECK(kvb_probe_parse_file(&p, s, &st, &err) == KVB_OK);
	CHECK(st.dropped_partial_line == 1);
	CHECK(s->ch[0].n == 3);
	CHECK_NEAR(kvb_samples_energy_j(&s->ch[0]), 2.0, 1e-12);
	kvb_samples_free(s);
	/* A whole last line without its newline is used. */
	write_file(tmp("cut.csv"), "time,a\n0,1\n1,1\n2,3");
	s = kvb_samples_new();
	CHECK(kvb_probe_parse_file(&p, s, &st, &err) == KVB_OK);
	CHECK(st.dropped_partial_line == 0);
	CHECK_NEAR(kvb_samples_energy_j(&s->ch[0]), 4.0, 1e-12);
	kvb_samples_free(s);
}

#define FIELD KVB_SOURCE_DIR "/tests/fixtures/field"

/* Real captures (tests/fixtures/field/acme/PROVENANCE): values computed there by hand. */
static void test_parse__real_iio_capture_and_devlib_csv(void)
{
	const char *files[] = { FIELD "/acme/iio-capture-Device0.csv", FIELD "/acme/devlib-acmecape-Device0.csv" };
	for (int f = 0; f < 2; f++) {
		struct kvb_probe_parse p = { .format = kvb_probe_format_find("acme"), .path = files[f], .instrument = "acme",
					     .chan_name = "device0", .time_mode = KVB_TIME_RELATIVE, .base_ns = 5 };
		struct kvb_samples *s = kvb_samples_new();
		struct kvb_error err;
		int rc = kvb_probe_parse_file(&p, s, NULL, &err);
		CHECK(rc == KVB_OK);
		if (rc) {
			fprintf(stderr, "%s\n", err.msg);
			kvb_samples_free(s);
			continue;
		}
		CHECK(s->n == 1);
		CHECK_STR(s->ch[0].name, "device0");
		CHECK(s->ch[0].n == 9);
		/* 2270 mW*ms; devlib's W column read as W, not as mW (which would be 1000x too low). */
		CHECK_NEAR(kvb_samples_energy_j(&s->ch[0]), 0.002270, 1e-9);
		CHECK_NEAR(kvb_samples_mean(&s->ch[0]), 250.0 / 9, 1e-9);
		CHECK(s->ch[0].t_first_ns == 5);
		CHECK(s->ch[0].t_last_ns == 5 + 81100000ll);
		kvb_samples_free(s);
	}
}

/* One rate-clocked parse (monsoon.py stdout, devlib CSVs without time) of a field file. */
static struct kvb_samples *parse_clocked(const char *path, double rate_hz)
{
	struct kvb_probe_parse p = { .format = kvb_probe_format_find("monsoon"), .path = path, .instrument = "meter", .rate_hz = rate_hz,
				     .time_mode = KVB_TIME_RELATIVE, .base_ns = 7 };
	struct kvb_samples *s = kvb_samples_new();
	struct kvb_error err;
	if (kvb_probe_parse_file(&p, s, NULL, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		kvb_samples_free(s);
		return NULL;
	}
	return s;
}

/*
 * Real Monsoon captures (tests/fixtures/field/monsoon/PROVENANCE): devlib's CSV (W, "\r\n",
 * header output_power,USB_power) and the monsoon.py --includeusb stdout it was made from, at
 * devlib's 500 Hz. Hand-computed there: output 0.000917452 J, mean 60.0518 mW; USB 7.39e-6 J,
 * mean 0.462 mW; 9 samples over 16 ms.
 */
static void test_parse__real_monsoon_capture_both_forms(void)
{
	const char *files[] = { FIELD "/monsoon/devlib-monsoon-samples.csv", FIELD "/monsoon/monsoon-py-includeusb-stdout.txt" };
	for (int f = 0; f < 2; f++) {
		struct kvb_samples *s = parse_clocked(files[f], 500);
		CHECK(s != NULL);
		if (!s)
			continue;
		CHECK(s->n == 2);
		CHECK_STR(s->ch[0].name, "output_power");
		CHECK_STR(s->ch[1].name, f ? "usb_power" : "USB_power");
		CHECK(s->ch[0].n == 9);
		CHECK_NEAR(kvb_samples_energy_j(&s->ch[0]), 0.000917452, 1e-12);
		CHECK_NEAR(kvb_samples_mean(&s->ch[0]), 540.466 / 9, 1e-9);
		CHECK_NEAR(kvb_samples_energy_j(&s->ch[1]), 7.39e-6, 1e-12);
		CHECK_NEAR(kvb_samples_mean(&s->ch[1]), 0.462, 1e-9);
		CHECK(s->ch[0].t_first_ns == 7);
		CHECK(s->ch[0].t_last_ns == 7 + 16000000ll);
		kvb_samples_free(s);
	}
}

/*
 * A real Arm energy probe capture as devlib's caiman-based EnergyProbeInstrument writes it
 * (tests/fixtures/field/aep/PROVENANCE): BAT_current (A), BAT_power (W), BAT_voltage (V), no
 * time, 10 kHz. Only power is a channel (before, current and voltage were read as power too).
 * Hand-computed: power 0.042 W summed, 0.035 W after the first sample: 3.5e-6 J, mean 4.6667 mW.
 */
static void test_parse__real_energy_probe_devlib_csv_keeps_power_only(void)
{
	struct kvb_samples *s = parse_clocked(FIELD "/aep/devlib-energyprobe-samples.csv", 10000);
	CHECK(s != NULL);
	if (!s)
		return;
	CHECK(s->n == 1);
	CHECK_STR(s->ch[0].name, "BAT_power");
	CHECK(s->ch[0].n == 9);
	CHECK_NEAR(kvb_samples_energy_j(&s->ch[0]), 3.5e-6, 1e-12);
	CHECK_NEAR(kvb_samples_mean(&s->ch[0]), 42.0 / 9, 1e-9);
	CHECK(s->ch[0].t_last_ns == 7 + 800000ll);
	kvb_samples_free(s);
}

static void test_metrics__channels_and_platform_sums(void)
{
	struct kvb_samples *s = kvb_samples_new();
	struct kvb_metrics m;
	struct kvb_error err;
	cJSON *sums = cJSON_Parse("{\"total_power\": [\"little\", \"big\"]}"), *bad = cJSON_Parse("{\"x\": [\"gpu\"]}");
	size_t a = kvb_samples_channel(s, "little", "mW", "e"), b = kvb_samples_channel(s, "big", "mW", "e");
	for (int i = 0; i <= 10; i++) {
		kvb_samples_add(s, a, i * 1000000000ll, 250);
		kvb_samples_add(s, b, i * 1000000000ll, 1000);
	}
	kvb_samples_finish(s);
	kvb_metrics_init(&m);
	CHECK(kvb_energy_metrics(&m, s, sums, &err) == KVB_OK);
	CHECK(m.n == 6);
	CHECK_STR(m.v[4].name, "energy");
	CHECK_STR(cJSON_GetObjectItem(m.v[4].classifiers, "chan_name")->valuestring, "total_power");
	CHECK_NEAR(m.v[4].value, 12.5, 1e-12);
	CHECK_STR(m.v[5].units, "mW");
	CHECK_NEAR(m.v[5].value, 1250, 1e-9);
	CHECK(m.v[0].lower_is_better == 1);
	CHECK(kvb_energy_metrics(&m, s, bad, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "sum 'x': no channel 'gpu' was recorded");
	kvb_metrics_release(&m);
	kvb_samples_free(s);
	cJSON_Delete(sums);
	cJSON_Delete(bad);
}

/*
 * A channel's energy added where the metrics array is full (the 16th metric: util's per-CPU rows
 * came first) keeps its chan_name: the pair's second add moves the array, and a pointer to the
 * first kept across it lost the classifier (the Juno's big channel, stored with no chan_name).
 */
static void test_metrics__channel_pair_at_a_full_array_keeps_its_classifier(void)
{
	struct kvb_metrics m;
	struct kvb_error err;
	struct kvb_chan_energy v[2] = { { .name = "big", .energy_j = 2, .power_mw = 1500 },
					{ .name = "little", .energy_j = 0.1, .power_mw = 60 } };
	kvb_metrics_init(&m);
	for (int i = 0; i < 15; i++)
		kvb_metrics_add(&m, "util_mean", i, "%", 0);
	CHECK(kvb_energy_emit(&m, v, 2, NULL, &err) == KVB_OK);
	CHECK(m.n == 19);
	for (size_t i = 15; i < m.n; i++) {
		const cJSON *c = cJSON_GetObjectItem(m.v[i].classifiers, "chan_name");
		CHECK(c != NULL);
		CHECK_STR(c ? c->valuestring : "(none)", i < 17 ? "big" : "little");
	}
	kvb_metrics_release(&m);
}

/* A store with one run, variant and job. */
static struct kvb_store *store_with_job(const char *name, int64_t *job_id)
{
	struct kvb_store *st;
	struct kvb_error err;
	int64_t run, var;
	struct kvb_run_info ri = { .platform = "local", .rounds = 1, .status = "running" };
	struct kvb_variant_row vr = { .name = "base" };
	struct kvb_job_row jr = { .seq = 1, .round = 1, .iteration = 1, .spec_id = "w", .workload = "w", .label = "w",
				  .params_json = "{}", .runtime_json = "{}" };
	unlink(tmp(name));
	if (kvb_store_open(&st, tmp(name), 0, &err))
		return fprintf(stderr, "%s\n", err.msg), NULL;
	kvb_store_run_begin(st, &ri, &run, &err);
	kvb_store_variant_add(st, run, &vr, &var, &err);
	jr.variant_id = var;
	kvb_store_plan_add(st, run, &jr, 1, &err);
	*job_id = jr.id;
	return st;
}

static double query_double(struct kvb_store *st, const char *sql)
{
	sqlite3_stmt *q;
	double v = -1;
	if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
		v = sqlite3_column_double(q, 0);
	sqlite3_finalize(q);
	return v;
}

/* Issue 42 item 4: the import formats come from one registry (probe.h), which the CLI's names and its
 * --rate rule read; a new raw format is a row there. */
static void test_probe_formats__registry_names_and_rate_rule(void)
{
	char *names = kvb_probe_format_names(", ", " or ");
	CHECK_STR(names, "csv, aep, acme, monsoon or devlib");
	free(names);
	CHECK(kvb_probe_format_find("devlib") && kvb_probe_format_find("devlib")->header == kvb_probe_format_find("monsoon")->header &&
	      (kvb_probe_format_find("devlib")->caps & KVB_PROBE_NEEDS_RATE));
	CHECK(kvb_probe_format_find("aep") && !(kvb_probe_format_find("aep")->caps & KVB_PROBE_NEEDS_RATE));
	CHECK(!kvb_probe_format_find("nope"));
}

/* Issue 40 item 3: the energy view held warm-up jobs (iteration 0) with no status, so an average
 * over it mixed them in. It now carries the job's status, and energy_compared holds only what diff
 * compares (ok and instrument-failed jobs). */
static void test_store__energy_view_says_status_and_leaves_warmups_out_of_compared(void)
{
	int64_t job;
	struct kvb_store *st = store_with_job("warmview.db", &job);
	struct kvb_metrics m;
	struct kvb_error err;
	struct kvb_job_outcome o = { .status = "warmup", .attempts = 1, .start_ns = 1, .end_ns = 2 };
	size_t c;
	if (!st)
		{ CHECK(0); return; }
	kvb_metrics_init(&m);
	m.samples = kvb_samples_new();
	c = kvb_samples_channel(m.samples, "sys", "mW", "meter");
	for (int i = 0; i < 100; i++)
		kvb_samples_add(m.samples, c, 1700000000000000000ll + i * 1000000ll, 3000.0);
	kvb_samples_finish(m.samples);
	CHECK(kvb_store_job_commit(st, 0, job, &o, &m, NULL, &err) == KVB_OK);
	CHECK(query_double(st, "SELECT count(*) FROM energy WHERE status = 'warmup'") == 1);
	CHECK(query_double(st, "SELECT count(*) FROM energy_compared") == 0);
	CHECK(query_double(st, "SELECT count(*) FROM witnesses WHERE status IS NOT NULL AND status <> 'warmup'") == 0);
	kvb_metrics_release(&m);
	kvb_store_close(st);
}

static void test_store__job_commit_keeps_every_sample_and_exports_them(void)
{
	int64_t job;
	struct kvb_store *st = store_with_job("commit.db", &job);
	struct kvb_metrics m;
	struct kvb_error err;
	struct kvb_job_outcome o = { .status = "ok", .attempts = 1, .start_ns = 1, .end_ns = 2 };
	uint64_t rows = 0;
	FILE *f;
	struct kvb_buf csv = KVB_BUF_INIT;
	size_t c;
	if (!st)
		{ CHECK(0); return; }
	kvb_metrics_init(&m);
	kvb_metrics_add(&m, "time", 1.25, "s", 1);
	m.samples = kvb_samples_new();
	c = kvb_samples_channel(m.samples, "sys", "mW", "meter");
	for (int i = 0; i < 10000; i++)
		kvb_samples_add(m.samples, c, 1700000000000000000ll + i * 1000000ll, 1500.0 + (i % 3));
	kvb_samples_finish(m.samples);
	CHECK(kvb_store_job_commit(st, 0, job, &o, &m, NULL, &err) == KVB_OK);
	CHECK(query_double(st, "SELECT n_samples FROM energy") == 10000);
	CHECK_NEAR(query_double(st, "SELECT energy_j FROM energy WHERE chan_name = 'sys'"),
		   kvb_samples_energy_j(&m.samples->ch[0]), 1e-9);
	CHECK(query_double(st, "SELECT count(*) FROM energy_chunk") == 3);
	/* The compact encoding: at most 8 bytes a sample in the blobs. */
	CHECK(query_double(st, "SELECT stored_bytes FROM energy") <= 8 * 10000);
	f = fopen(tmp("export.csv"), "w");
	CHECK(kvb_store_samples_export_csv(st, job, "sys", f, &rows, &err) == KVB_OK);
	fclose(f);
	CHECK(rows == 10000);
	kvb_buf_read_file(&csv, tmp("export.csv"));
	CHECK(!strncmp(csv.data, "t_ns,chan_name,value,units\n1700000000000000000,sys,1500,mW\n1700000000001000000,sys,1501,mW\n", 90));
	f = fopen(tmp("export.csv"), "w");
	CHECK(kvb_store_samples_export_csv(st, job, "gpu", f, &rows, &err) == KVB_EINPUT);
	fclose(f);
	CHECK_CONTAINS(err.msg, "no energy samples for channel 'gpu'");
	/* A redone job (resume) replaces its samples instead of adding to them. */
	CHECK(kvb_store_job_commit(st, 0, job, &o, &m, NULL, &err) == KVB_OK);
	CHECK(query_double(st, "SELECT count(*) FROM energy_channel") == 1);
	kvb_buf_release(&csv);
	kvb_metrics_release(&m);
	kvb_store_close(st);
}

static void test_import__attaches_csv_to_job_and_replaces_on_reimport(void)
{
	int64_t job;
	struct kvb_store *st = store_with_job("import.db", &job);
	struct kvb_error err;
	struct kvb_probe_stats ps;
	struct kvb_buf b = KVB_BUF_INIT;
	if (!st)
		{ CHECK(0); return; }
	kvb_buf_adds(&b, "time,little,big\n");
	for (int i = 0; i <= 10000; i++)  /* 10 s at 1 kHz: 0.5 W and 1.5 W */
		kvb_buf_addf(&b, "%.3f,0.5,1.5\n", i / 1000.0);
	write_file(tmp("probe.csv"), b.data);
	CHECK(kvb_energy_import_csv(st, job, tmp("probe.csv"), NULL, &ps, &err) == KVB_OK);
	CHECK(ps.samples_kept == 20002);
	CHECK_NEAR(query_double(st, "SELECT energy_j FROM energy WHERE chan_name = 'big'"), 15.0, 1e-9);
	CHECK_NEAR(query_double(st, "SELECT m.value FROM metric m JOIN classifier c ON c.metric_id = m.id"
				    " WHERE m.name = 'energy' AND c.value = 'little'"),
		   5.0, 1e-9);
	CHECK_NEAR(query_double(st, "SELECT m.value FROM metric m JOIN classifier c ON c.metric_id = m.id"
				    " WHERE m.name = 'power_mean' AND c.value = 'big'"),
		   1500.0, 1e-9);
	CHECK(kvb_energy_import_csv(st, job, tmp("probe.csv"), NULL, &ps, &err) == KVB_OK);
	CHECK(query_double(st, "SELECT count(*) FROM energy_channel") == 2);
	CHECK(query_double(st, "SELECT count(*) FROM metric") == 4);
	CHECK(query_double(st, "SELECT count(*) FROM classifier") == 4);
	/* A bad file stores nothing: the earlier import is intact. */
	write_file(tmp("bad.csv"), "time,little\n0,1\n1,\n");
	CHECK(kvb_energy_import_csv(st, job, tmp("bad.csv"), NULL, &ps, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "bad.csv:3: column 2: '' is not a finite number");
	CHECK_NEAR(query_double(st, "SELECT energy_j FROM energy WHERE chan_name = 'little'"), 5.0, 1e-9);
	CHECK(kvb_energy_import_csv(st, 999, tmp("probe.csv"), NULL, &ps, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "no job 999");
	/* A truncated iio-capture file (the real capture's header and first sample, then cut mid-line):
	 * one sample spans no time, so 0 J would be stored as measured. Bad input, nothing stored. */
	{
		struct kvb_energy_import_opts io = { .format = kvb_probe_format_find("acme"), .chan_name = "device0" };
		write_file(tmp("iio-cut.csv"), "\"vshunt mV\", \"vbus mV\", \"power mW\", \"current mA\", \"timestamp ms\"\n"
					       "35.0, 4387.5, 25.0, 4.0, 0.0\n-42.5, 4386.2, 2");
		CHECK(kvb_energy_import_csv(st, job, tmp("iio-cut.csv"), &io, &ps, &err) == KVB_EINPUT);
		CHECK_CONTAINS(err.msg, "iio-cut.csv: channel 'device0' has 1 sample: energy needs at least 2");
		CHECK(query_double(st, "SELECT count(*) FROM energy_channel") == 2);
	}
	kvb_buf_release(&b);
	kvb_store_close(st);
}

static void test_util__snapshots_give_min_mean_max_per_cpu(void)
{
	/* cpu0: busy 50 of 100, then 100 of 100; cpu1 idle then 25%. The third snapshot is cut (no separator). */
	const char *text = "cpu  0 0 0 0\ncpu0 100 0 0 100 0 0 0 0\ncpu1 0 0 0 200 0 0 0 0\n---\n"
			   "cpu0 150 0 0 150 0 0 0 0\ncpu1 0 0 0 300 0 0 0 0\n---\n"
			   "cpu0 200 0 50 150 0 0 0 0\ncpu1 10 0 10 375 0 5 0 0\n---\n"
			   "cpu0 999 0 0 0";
	struct kvb_metrics m;
	char why[128];
	kvb_metrics_init(&m);
	CHECK(kvb_util_from_snapshots(text, &m, why, sizeof(why)) == 0);
	CHECK(m.n == 6);
	CHECK_STR(m.v[0].name, "util_min");
	CHECK_STR(cJSON_GetObjectItem(m.v[0].classifiers, "cpu")->valuestring, "0");
	CHECK_NEAR(m.v[0].value, 50, 1e-12);
	CHECK_NEAR(m.v[1].value, 75, 1e-12);
	CHECK_NEAR(m.v[2].value, 100, 1e-12);
	CHECK_NEAR(m.v[3].value, 0, 1e-12);   /* cpu1 min */
	CHECK_NEAR(m.v[5].value, 25, 1e-12);  /* cpu1 max: 25 busy of 100 */
	kvb_metrics_release(&m);
	/* sysstat/sysstat#433: cpu1 went offline and came back within the job, its idle read 10
	 * ticks lower (nohz idle clock against the tick counters) while user gained 50: the summed
	 * fields said 50 busy of 40 ticks, stored as 100 %. That interval is refused; the next one
	 * (10 busy of 40) stands alone. */
	kvb_metrics_init(&m);
	CHECK(kvb_util_from_snapshots("cpu0 100 0 0 100 0 0 0 0\ncpu1 100 0 0 1000 0 0 0 0\n---\n"
				      "cpu0 150 0 0 150 0 0 0 0\ncpu1 150 0 0 990 0 0 0 0\n---\n"
				      "cpu0 200 0 0 200 0 0 0 0\ncpu1 160 0 0 1020 0 0 0 0\n---\n",
				      &m, why, sizeof(why)) == 0);
	CHECK(m.n == 6);
	CHECK_STR(cJSON_GetObjectItem(m.v[3].classifiers, "cpu")->valuestring, "1");
	CHECK_NEAR(m.v[3].value, 25, 1e-12); /* cpu1 min */
	CHECK_NEAR(m.v[5].value, 25, 1e-12); /* cpu1 max: not 100 */
	kvb_metrics_release(&m);
	kvb_metrics_init(&m);
	CHECK(kvb_util_from_snapshots("cpu0 1 2 3 4\n---\n", &m, why, sizeof(why)) == KVB_EINPUT);
	CHECK_CONTAINS(why, "1 usable /proc/stat snapshot, need 2");
	kvb_metrics_release(&m);
}

/* issue 40: NO_HZ iowait going back (sysstat #14, proc(5)) is held, not the interval thrown away. */
static void test_util__iowait_going_back_is_held_per_field(void)
{
	/* cpu0: busy 10 of 20 ticks, then an idle interval whose iowait fell 3 while idle rose 20 (0 %),
	 * then busy 10 of 18 (iowait from the held 5 to 6): min 0; before, the idle interval
	 * vanished (min 47.6).  */
	const char *text = "uptime 1.00\ncpu0 100 0 0 100 5 0 0 0\n---\n"
			   "uptime 1.20\ncpu0 110 0 0 110 5 0 0 0\n---\n"
			   "uptime 1.40\ncpu0 110 0 0 130 2 0 0 0\n---\n"
			   "uptime 1.60\ncpu0 120 0 0 137 6 0 0 0\n---\n";
	struct kvb_metrics m;
	char why[128];
	kvb_metrics_init(&m);
	CHECK(kvb_util_from_snapshots(text, &m, why, sizeof(why)) == 0);
	CHECK(m.n == 3);
	CHECK_NEAR(m.v[0].value, 0, 1e-12);
	CHECK_NEAR(m.v[1].value, (50.0 + 0 + 10.0 / 18 * 100) / 3, 1e-9);
	CHECK_NEAR(m.v[2].value, 100.0 * 10 / 18, 1e-9);
	CHECK(m.witnesses.n == 1);
	CHECK_STR(m.witnesses.v[0].subject, "cpu0 iowait");
	CHECK(m.witnesses.v[0].verdict == KVB_WIT_OK);
	CHECK_CONTAINS(m.witnesses.v[0].detail, "below its previous value in 1 of 3 intervals");
	kvb_metrics_release(&m);
}

/* issue 40 item 2: a CPU offline for part of the job and back by its end is seen in the samples. */
static void test_util__cpu_missing_from_a_sample_is_hotplug(void)
{
	const char *text = "uptime 5.00\ncpu0 100 0 0 100 0 0 0 0\ncpu1 100 0 0 100 0 0 0 0\n---\n"
			   "uptime 5.10\ncpu0 105 0 0 105 0 0 0 0\n---\n"
			   "uptime 5.20\ncpu0 110 0 0 110 0 0 0 0\ncpu1 101 0 0 10 0 0 0 0\n---\n"
			   "uptime 5.30\ncpu0 115 0 0 115 0 0 0 0\ncpu1 106 0 0 15 0 0 0 0\n---\n";
	struct kvb_metrics m;
	char why[128];
	kvb_metrics_init(&m);
	CHECK(kvb_util_from_snapshots(text, &m, why, sizeof(why)) == 0);
	CHECK(m.n == 6);
	CHECK_NEAR(m.v[4].value, 50, 1e-12); /* cpu1 mean: the one interval after it came back */
	CHECK(kvb_witnesses_count(&m.witnesses, KVB_WIT_CHANGED) == 1);
	CHECK_STR(m.witnesses.v[0].kind, "hotplug");
	CHECK_STR(m.witnesses.v[0].subject, "cpu1 /proc/stat");
	CHECK_CONTAINS(m.witnesses.v[0].detail, "missing from 1 of the 4 /proc/stat samples (uptime 5.10 to 5.10 s)");
	kvb_metrics_release(&m);
	/* no line missing, but idle restarted (pcp #1507: 1180890 -> 1400 ms after offline/online) */
	kvb_metrics_init(&m);
	CHECK(kvb_util_from_snapshots("uptime 7.00\ncpu0 500 0 100 118089 0 0 0 0\n---\n"
				      "uptime 7.50\ncpu0 520 0 105 140 0 0 0 0\n---\n"
				      "uptime 8.00\ncpu0 540 0 105 160 0 0 0 0\n---\n",
				      &m, why, sizeof(why)) == 0);
	CHECK(m.n == 3);
	CHECK_NEAR(m.v[1].value, 50, 1e-12);
	CHECK(kvb_witnesses_count(&m.witnesses, KVB_WIT_CHANGED) == 1);
	CHECK_CONTAINS(m.witnesses.v[0].detail, "restarted between the samples at uptime 7.00 and 7.50 s");
	kvb_metrics_release(&m);
}

/* prometheus/procfs #84: /proc/stat lists online CPUs only, numbered with gaps (cpu0, cpu1, cpu8,
 * cpu9 of a machine with most CPUs offline, real lines); sysstat #327: a CPU hot-added during the
 * interval (cpu16 here) appears in a later sample. Each CPU is its own number; the gaps are no
 * hotplug; the one that appeared is. */
static void test_util__cpu_numbering_gaps_and_a_cpu_that_appears(void)
{
	const char *text = "uptime 10.00\ncpu  8955653 5338 10313729 6891866013 1194210 0 38962 0 0 0\n"
			   "cpu0 138803 9 56167 172504763 16187 0 1296 0 0 0\ncpu1 322651 754 427280 171926334 25235 0 1291 0 0 0\n"
			   "cpu8 199865 3 91024 172386730 20071 0 646 0 0 0\ncpu9 326453 474 412719 171934902 24410 0 723 0 0 0\n---\n"
			   "uptime 11.00\ncpu0 138853 9 56167 172504813 16187 0 1296 0 0 0\ncpu1 322651 754 427280 171926434 25235 0 1291 0 0 0\n"
			   "cpu8 199965 3 91024 172386730 20071 0 646 0 0 0\ncpu9 326453 474 412719 171935002 24410 0 723 0 0 0\n---\n"
			   "uptime 12.00\ncpu0 138903 9 56167 172504863 16187 0 1296 0 0 0\ncpu1 322651 754 427280 171926534 25235 0 1291 0 0 0\n"
			   "cpu8 200065 3 91024 172386730 20071 0 646 0 0 0\ncpu9 326453 474 412719 171935102 24410 0 723 0 0 0\n"
			   "cpu16 181309 2 66982 172442461 21437 0 788 0 0 0\n---\n";
	struct kvb_metrics m;
	char why[128];
	kvb_metrics_init(&m);
	CHECK(kvb_util_from_snapshots(text, &m, why, sizeof(why)) == 0);
	CHECK(m.n == 12); /* cpu0, 1, 8, 9: cpu16 has no interval yet */
	CHECK_STR(cJSON_GetObjectItem(m.v[6].classifiers, "cpu")->valuestring, "8");
	CHECK_NEAR(m.v[7].value, 100, 1e-12); /* cpu8 busy throughout */
	CHECK_NEAR(m.v[1].value, 50, 1e-12);  /* cpu0 */
	CHECK(m.witnesses.n == 1);
	CHECK_STR(m.witnesses.v[0].subject, "cpu16 /proc/stat");
	CHECK_CONTAINS(m.witnesses.v[0].detail, "cpu16 came online during the job");
	kvb_metrics_release(&m);
}

static void test_cpulist__ranges_and_errors(void)
{
	unsigned char set[16];
	CHECK(kvb_cpulist_parse("0-3,5", set, 16) == 5);
	CHECK(set[3] && !set[4] && set[5]);
	CHECK(kvb_cpulist_parse("3-1", set, 16) == -1);
	CHECK(kvb_cpulist_parse("0,x", set, 16) == -1);
	CHECK(kvb_cpulist_parse("16", set, 16) == -1);
}

#define TESTS                                                                                                          \
	T(test_chunk__round_trips_irregular_times_and_values)                                                         \
	T(test_chunk__regular_clock_costs_five_bytes_a_sample)                                                        \
	T(test_energy__constant_power_is_p_times_duration_at_any_rate)                                                \
	T(test_parse__csv_units_from_header_and_time_suffix)                                                          \
	T(test_parse__absolute_times_are_cut_to_the_window)                                                           \
	T(test_parse__bad_data_names_file_and_line)                                                                   \
	T(test_parse__last_line_cut_by_sigterm_is_dropped)                                                            \
	T(test_parse__real_iio_capture_and_devlib_csv)                                                            \
	T(test_parse__real_monsoon_capture_both_forms) \
	T(test_parse__real_energy_probe_devlib_csv_keeps_power_only) \
	T(test_metrics__channels_and_platform_sums)                                                                   \
	T(test_metrics__channel_pair_at_a_full_array_keeps_its_classifier)                                            \
	T(test_store__job_commit_keeps_every_sample_and_exports_them)                                                 \
	T(test_store__energy_view_says_status_and_leaves_warmups_out_of_compared)                                      \
	T(test_probe_formats__registry_names_and_rate_rule)                                                            \
	T(test_import__attaches_csv_to_job_and_replaces_on_reimport)                                                  \
	T(test_util__iowait_going_back_is_held_per_field)                                                              \
	T(test_util__cpu_missing_from_a_sample_is_hotplug)                                                             \
	T(test_util__cpu_numbering_gaps_and_a_cpu_that_appears)                                                        \
	T(test_util__snapshots_give_min_mean_max_per_cpu)                                                             \
	T(test_cpulist__ranges_and_errors)
#include "test_main.h"
