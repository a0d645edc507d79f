/*
 * What the energy and platform instruments share: parsers for the output
 * formats of real meters (notes/formats.md "Energy meters"), the job window
 * cut, per-channel energy metrics and platform-defined sums, meter commands
 * run on the host, background commands on the target, and reading
 * /proc and /sys under a configurable root.
 *
 * Formats parsed (one streaming parser, 1 MiB buffer, any file size):
 *  - csv: header then rows. The time column is found by name (time,
 *    time_<unit>, time(<unit>), timestamp...; never by position; none is an
 *    error naming the columns) and its name gives its units by suffix (_s or
 *    none = s, _ms, _us, _ns); header names may be CSV-quoted; a value column
 *    may carry units as "name(W)", "name[mW]" or "name_uW" (else default_units).
 *  - acme: iio-capture -c CSV, columns found by name with the unit
 *    in the quoted name ("power mW", "timestamp ms"), or devlib's
 *    post-processed CSV (device_power in W, timestamp_time_ms); one channel
 *    per file. tests/fixtures/field/acme holds real captures.
 *  - aep: arm-probe output: '#' lines skipped, then a whitespace
 *    separated label line "time NAME(V) NAME(A) NAME(W) ...", time in s;
 *    only the "(W)" columns are kept.
 *  - monsoon, devlib: whitespace or comma separated W values, no time:
 *    sample i is at i / rate_hz; an optional first non-numeric line names the
 *    columns (default names output_power, usb_power, col3, ...). This is
 *    monsoon.py --includeusb stdout and every devlib MeasurementsCsv without a
 *    time column (devlib's monsoon and caiman-based energy probe CSVs): named
 *    SITE_voltage / _current / _energy / _temperature columns are not power
 *    and are skipped. tests/fixtures/field/{monsoon,aep} hold real captures.
 * Power is converted to mW on the way in.
 *
 * Bad data is an error naming FILE:LINE: a line with too few or too many
 * fields, a value that is not a finite number (NaN), time going backwards, a
 * channel asked for in `channels:` missing from the header, and an empty
 * file. One exception, documented: a last line without its newline is a meter
 * killed mid-write by our SIGTERM and is dropped with a warning.
 *
 * Time: timestamps >= 1e18 ns (after 2001 as epoch ns) are taken as absolute
 * CLOCK_REALTIME (KVB_TIME_AUTO); others are relative: the first sample is put
 * at base_ns (the wall time the meter command started) and the rest keep
 * their distance to it. Samples outside [win_start_ns, win_stop_ns] are cut.
 */
#ifndef KVB_PROBE_H
#define KVB_PROBE_H

#include "core/error.h"
#include "core/cpulist.h"
#include "core/metric.h"
#include "core/samples.h"
#include "core/spawn.h"
#include "instrument/coverage.h"
#include "config/platform.h"
#include "target/background.h" /* background commands on the target */
#include "target/target.h"

#include <cjson/cJSON.h>
#include <stdint.h>

enum kvb_time_mode { KVB_TIME_AUTO, KVB_TIME_RELATIVE, KVB_TIME_ABSOLUTE };

/* What a raw format is, for its readers (enum kvb_probe_format_caps in struct kvb_probe_format). */
enum kvb_probe_format_caps {
	KVB_PROBE_NEEDS_RATE = 1u << 0,       /* no time in the file: samples at rate_hz (import --rate) */
	KVB_PROBE_HASH_COMMENTS = 1u << 1,    /* every '#' line is a comment (else only those before the header) */
	KVB_PROBE_FILE_PER_CHANNEL = 1u << 2, /* one file per channel (chan_name): a channels map does not apply */
};

struct kvb_probe_state;   /* probe_parse.c: one parse in progress */
struct kvb_probe_columns; /* probe_parse.c: the channels a header names */

/*
 * One raw format `kvbench import energy --format NAME` and the command meters read, a row of
 * kvb_probe_formats[] (probe_parse.c): the import command, its --format option's value list
 * (cli/option_values.c: usage, help, completion, the bad-value message) take the names from there, so a meter with its own
 * raw format adds a row and its header reader, not a branch in the CLI or the parser.
 */
struct kvb_probe_format {
	const char *name;    /* "monsoon" */
	const char *summary; /* one line for usage and help */
	char sep;            /* fields split at ',' (CSV), ' ' (whitespace) or 'm' (whitespace or comma) */
	unsigned caps;       /* enum kvb_probe_format_caps */
	/* Reads the header line (ps's fields) into the time column and channels; errors "FILE:LINE: ...". */
	int (*header)(struct kvb_probe_state *ps, struct kvb_probe_columns *c, struct kvb_error *err);
};
/* NULL-name-terminated; static. */
extern const struct kvb_probe_format kvb_probe_formats[];
/* The row named name, or NULL. */
const struct kvb_probe_format *kvb_probe_format_find(const char *name);
/* The names joined: kvb_probe_format_names(", ", " or ") "csv, aep, ... or devlib". Owned by the caller. */
char *kvb_probe_format_names(const char *sep, const char *last);

struct kvb_probe_parse {
	const struct kvb_probe_format *format; /* a row of kvb_probe_formats[] */
	const char *path;            /* file to read */
	const char *instrument;      /* instance name recorded on the channels */
	const char *chan_name;       /* ACME: the channel this file is; others: unused */
	const cJSON *channels;       /* optional {chan_name: column label}: select and rename (not ACME) */
	const char *default_units;   /* CSV value columns without units: "W" (default), "mW" or "uW" */
	double rate_hz;              /* MONSOON: samples per second (> 0) */
	enum kvb_time_mode time_mode;
	int64_t base_ns;             /* wall time of the first sample for relative time */
	int64_t win_start_ns, win_stop_ns; /* keep samples with start <= t <= stop; both 0 = keep all */
	int allow_empty;             /* 1: no samples is not an error (import of a header-only file) */
};

/* Statistics of one parse (for import reports and the bench). */
struct kvb_probe_stats {
	uint64_t lines, samples_read, samples_kept;
	uint64_t bytes;
	int dropped_partial_line;   /* 1 when a last line without newline was dropped */
};

/*
 * Parses p->path into out (channels created as "name" in mW, instrument
 * p->instrument). st may be NULL. Returns KVB_OK, KVB_EINPUT for bad data
 * (message "FILE:LINE: ..."), or a sink error code from out.
 */
int kvb_probe_parse_file(const struct kvb_probe_parse *p, struct kvb_samples *out, struct kvb_probe_stats *st,
			 struct kvb_error *err);

/* Units name -> factor to mW ("W" 1000, "mW" 1, "uW" 0.001); 0 if unknown. */
double kvb_power_units_to_mw(const char *units);

/* Energy of one channel, as the metrics report it. */
struct kvb_chan_energy {
	const char *name;   /* chan_name */
	double energy_j;
	double power_mw;    /* mean power over the job */
	int estimated;      /* adds classifier estimated=true */
};

/*
 * Adds `energy` (J, lower is better) and `power_mean` (mW, lower is better)
 * with classifier chan_name for each of v[n], then one pair per entry of
 * sums ({name: [channel, ...]}, may be NULL): energies and mean powers
 * added. A sum naming a channel not in v is KVB_EINPUT.
 */
int kvb_energy_emit(struct kvb_metrics *m, const struct kvb_chan_energy *v, size_t n, const cJSON *sums,
		    struct kvb_error *err);
/* kvb_energy_emit over the channels of s, leaving out refused channels and the sums that name one
 * (a `refused` witness of the sum in m). */
int kvb_energy_metrics(struct kvb_metrics *m, const struct kvb_samples *s, const cJSON *sums, struct kvb_error *err);

/*
 * kvb_energy_emit of the channels of v[n] whose refused[i] is 0, with the instance's `sums:`
 * (c->conf): a sum naming a refused channel is left out with a `refused` witness of the sum
 * ("NAME sum SUM") in c->out. For meters read as counters (juno-hwmon, rapl).
 */
struct kvb_instr_ctx;
int kvb_energy_emit_kept(struct kvb_instr_ctx *c, const struct kvb_chan_energy *v, const int *refused, size_t n,
			 struct kvb_error *err);

/* Validates a `sums:` mapping: {name: [channel names]}; returns KVB_EINPUT with the instance name. */
int kvb_sums_check(const cJSON *sums, struct kvb_error *err);

/* A meter command running on the host, stdout to a file, stopped with its stop signal (kvb_probe_cmd_stop). */
struct kvb_probe_cmd {
	struct kvb_bgproc proc;
	char *out_path, *err_path;
	int64_t started_ns;   /* wall time just before spawning (relative time origin) */
	int running;
};
/* argv from a conf value: a list of strings, or one string split on spaces. KVB_EINPUT if neither. */
enum kvb_err kvb_conf_argv(const cJSON *v, struct kvb_strv *out);
int kvb_probe_cmd_start(struct kvb_probe_cmd *c, const char *const *argv, const char *out_path, struct kvb_error *err);
/*
 * Waits (polling every 10 ms) until path, the file the started command records
 * into, holds at least one byte: the meter is recording before the job starts.
 * timeout_ms 0 returns at once. KVB_ETARGET, naming path and quoting the
 * command's stderr, if the command ends first or nothing appears in time.
 */
int kvb_probe_cmd_wait_output(struct kvb_probe_cmd *c, const char *path, unsigned timeout_ms,
			      struct kvb_error *err);
/*
 * Stops the command: sig (SIGINT or SIGTERM) to its process group, then SIGKILL after grace_ms;
 * *killed (may be NULL) = 1 when it took the SIGKILL (its output may end early). A command that
 * had already exited with a non-zero status fails with KVB_ETARGET quoting the first line of its stderr.
 */
int kvb_probe_cmd_stop(struct kvb_probe_cmd *c, const char *what, int sig, unsigned grace_ms, int *killed,
		       struct kvb_error *err);
void kvb_probe_cmd_release(struct kvb_probe_cmd *c);
/* ": FIRST LINE" of the command's stderr (for messages), or "" when it printed nothing. */
void kvb_probe_cmd_stderr_line(const struct kvb_probe_cmd *c, char *line, size_t n);




/*
 * Command-driven meters (csv-command, aep, monsoon, acme) share one
 * implementation: one or more host commands started at start(), their stop
 * signal at stop() (a SIGKILL after the grace is a `changed` witness), their
 * output parsed at collect() with the job window, each channel's coverage of
 * the window judged (coverage.h: a `meter` witness per channel, a refused
 * channel stores no energy), samples and energy metrics into the job, raw
 * files kept as artifacts ("energy-raw").
 */
struct kvb_instr_ctx;
struct kvb_meter_cmd {
	struct kvb_strv argv;
	char *stdout_path;   /* where the command's stdout goes */
	char *data_path;     /* the file parsed (== stdout_path unless the tool writes a file, like iio-capture -f) */
	char *chan_name;     /* ACME: channel of this command */
	struct kvb_probe_cmd cmd;
};
struct kvb_meter {
	const struct kvb_probe_format *format;
	enum kvb_time_mode time_mode;
	const char *default_units;
	double rate_hz;
	unsigned ready_timeout_ms; /* wait for each command's first output at start (ms); 0 = no wait */
	int stop_signal;           /* SIGINT or SIGTERM (`stop_signal:`, default from the meter type) */
	unsigned stop_timeout_ms;  /* grace after stop_signal before SIGKILL (`stop_timeout_ms:`, default 5000) */
	struct kvb_coverage_rule coverage; /* max_gap_intervals, edge_ms; rate_hz from the meter */
	const cJSON *channels;  /* select/rename (not ACME) */
	const cJSON *sums;
	struct kvb_meter_cmd *cmd;
	size_t ncmd;
};
/*
 * The `ready_timeout_ms` key every command meter takes (default 0: the job
 * starts as soon as the command is spawned; > 0: start waits up to that long
 * for the command's first output, and fails the job if none comes).
 */
#define KVB_METER_READY_KEY                                                                                           \
	{ "ready_timeout_ms", KVB_T_INT, "0", NULL, KVB_KEY_NONNEG,                                                   \
	  "wait up to this long after starting the meter for its first output before the job starts (0: no wait)" }
/*
 * The keys every command meter takes to stop and to prove its window (coverage.h):
 * stop_signal (DEF: the meter type's default, "INT" or "TERM"), stop_timeout_ms, max_gap_intervals,
 * edge_ms. A meter that only finishes its capture on SIGINT (caiman registers a SIGINT handler only,
 * devlib #47/#48; monsoon.py ends on KeyboardInterrupt) loses what it buffered when SIGTERM kills it.
 */
#define KVB_METER_STOP_KEYS(DEF)                                                                                      \
	{ "stop_signal", KVB_T_STR, DEF, "INT|TERM", 0,                                                               \
	  "signal that stops the meter and makes it write what it holds (SIGKILL follows after stop_timeout_ms)" },   \
	{ "stop_timeout_ms", KVB_T_INT, "5000", NULL, KVB_KEY_POSITIVE,                                              \
	  "grace after stop_signal before the meter is killed (a kill is an event: its output may end early)" },     \
	{ "max_gap_intervals", KVB_T_NUM, "10", NULL, KVB_KEY_POSITIVE,                                              \
	  "a gap between samples longer than this many intervals refuses the channel's energy" },                   \
	{ "edge_ms", KVB_T_NUM, "50", NULL, KVB_KEY_NONNEG,                                                          \
	  "samples must start and end within max(one interval, edge_ms) of the job, else the energy is refused" }
/*
 * Allocates c->priv as a meter: reads ready_timeout_ms and the KVB_METER_STOP_KEYS from c->conf,
 * def_stop_signal (SIGINT or SIGTERM) when stop_signal is not given; format: a kvb_probe_formats[] name
 * (one the registry lacks aborts: a meter names its own). Returns it.
 */
struct kvb_meter *kvb_meter_new(struct kvb_instr_ctx *c, const char *format, int def_stop_signal);
/* Adds a command whose stdout goes to ARTIFACT_DIR/NAME[-chan].out; data_path NULL = parse stdout. */
struct kvb_meter_cmd *kvb_meter_add(struct kvb_instr_ctx *c, const char *chan_name, const char *data_suffix);
/* Reads `time:` (auto|relative|absolute) into the meter. */
void kvb_meter_time_mode(struct kvb_meter *m, const cJSON *conf, enum kvb_time_mode def);
int kvb_meter_start(struct kvb_instr_ctx *c, struct kvb_error *err);
int kvb_meter_stop(struct kvb_instr_ctx *c, struct kvb_error *err);
int kvb_meter_collect(struct kvb_instr_ctx *c, struct kvb_error *err);
void kvb_meter_teardown(struct kvb_instr_ctx *c);
/* `platform check` of a command meter: runs ops->setup (which builds each command's argv, as the
 * job will) and checks every argv[0] on this host (check.c). */
struct kvb_instr_probe;
struct kvb_instrument_ops;
void kvb_meter_probe(struct kvb_instr_probe *p, const struct kvb_instrument_ops *ops);

/* Computes channel and sum metrics of s into c->out, then moves s's channels into c->out->samples. */
int kvb_instr_take_samples(struct kvb_instr_ctx *c, struct kvb_samples *s, const cJSON *sums, struct kvb_error *err);

/* Per-CPU times from /proc/stat, in USER_HZ ticks, indexed by CPU number (n = highest + 1). */
struct kvb_procstat {
	int n;
	uint64_t *busy;   /* user + nice + system + irq + softirq + steal */
	uint64_t *total;  /* busy + idle + iowait */
	uint64_t (*field)[8]; /* user nice system idle iowait irq softirq steal, as read */
	unsigned char *seen;
};
/* Parses the cpuN lines of /proc/stat text. Returns 0, or -1 when there is none. */
int kvb_procstat_parse(const char *text, struct kvb_procstat *ps);
void kvb_procstat_release(struct kvb_procstat *ps);

/*
 * One CPU's /proc/stat fields from the previous reading (base) to cur (user nice system idle
 * iowait irq softirq steal, USER_HZ ticks), each field a declared counter (counter.h), handled
 * as sysstat does: a field that went back (NO_HZ iowait: proc(5), sysstat #14) counts 0 in this
 * interval and is held at its previous value, so the interval is kept; idle going back is the
 * CPU gone offline and back (its idle restarts: sysstat #433, pcp #1507): st->restarted is set
 * and that interval is not used (how long the CPU was out is unknown; sysstat counts idle from
 * 0, which over-counts when it did not restart at 0). The first reading (base->have 0) only sets
 * the base. Returns 0 with st->busy and st->total (ticks), or -1 when there is no interval
 * (first reading, a restart, or no tick passed). base is updated.
 */
struct kvb_procstat_base {
	uint64_t f[8];
	int have;
};
struct kvb_procstat_step {
	double busy, total;  /* ticks: user+nice+system+irq+softirq+steal; that + idle + iowait */
	int restarted;       /* idle went back: the CPU was offline between the readings (no interval) */
	unsigned held;       /* bit f: field f went back and was held */
};
int kvb_procstat_step(struct kvb_procstat_base *base, const uint64_t cur[8], struct kvb_procstat_step *st);

/*
 * What a run of /proc/stat snapshots showed of one CPU besides its movement (cpu_util.c, model.c):
 * hotplug (missing from a snapshot: /proc/stat lists online CPUs only; first seen after the first
 * snapshot; idle restarted) and fields held (kvb_procstat_step). Zero it before the first snapshot.
 */
struct kvb_cpu_seen {
	struct kvb_procstat_base base;
	int present;          /* in the previous snapshot */
	int missing;          /* snapshots it was missing from after it was seen */
	double miss_from, miss_to;  /* uptimes of the first and last of them (-1: unknown) */
	int appeared;         /* first seen after the first snapshot: came online during the job */
	double app_at;
	int restarts;         /* intervals whose idle restarted */
	double rs_from, rs_to;      /* uptimes around the first restart */
	int held[8];          /* intervals in which field f went back and was held */
	int intervals;        /* intervals used */
};
/*
 * Steps CPU cpu of snapshot cur (the snaps-th, 1 = first, taken at uptime up, the one before at
 * prev_up; -1 unknown) in cs. Returns 0 with st (ticks) when the interval since the previous
 * snapshot is used, -1 when there is none (first reading, CPU absent, idle restarted, no tick).
 */
int kvb_cpu_seen_step(struct kvb_cpu_seen *cs, const struct kvb_procstat *cur, int cpu, int snaps, double up,
		      double prev_up, struct kvb_procstat_step *st);
/*
 * The witnesses of cs[ncpu] over snaps snapshots into out: `hotplug`, `changed`, per CPU that
 * appeared, went missing or whose idle restarted; `counter`, `ok`, per field held. what: what the
 * CPU's intervals make ("its utilisation"), said to be "of the intervals it was online".
 */
void kvb_cpu_seen_witnesses(struct kvb_metrics *out, const struct kvb_cpu_seen *cs, int ncpu, int snaps,
			    const char *what);

/* cpufreq stats/time_in_state: n rows of frequency (kHz) and time (10 ms units); total_trans when read. */
struct kvb_tis {
	size_t n;
	uint64_t *khz;
	uint64_t *t;
	int has_trans;
	uint64_t trans;
};
int kvb_tis_parse(const char *text, struct kvb_tis *t);
void kvb_tis_release(struct kvb_tis *t);
/* Reads ROOT/sys/devices/system/cpu/cpuN/cpufreq/stats/time_in_state. */
int kvb_tis_read(struct kvb_target *t, const char *root, int cpu, struct kvb_tis *out, struct kvb_error *err);

struct kvb_instr_probe;
/* `platform check` (instrument.h kvb_instr_probe): the time_in_state of each cluster's first CPU
 * (p->plat's topology) must be a readable file under the platform's sysfs_root on the board;
 * a topology that does not resolve is a problem of p. (cpufreq and model probe the same files.) */
void kvb_instr_probe_tis(struct kvb_instr_probe *p);

/*
 * One cluster's residency over a job from its time_in_state readings in order (residency.c):
 * the rows of a table are counters that restart together (counter.h, kvb_ctr_group_step):
 * `stats/reset`, or the table freed with its policy when the cluster's CPUs all went offline
 * and recreated when one came back (Documentation/cpu-freq/cpufreq-stats.rst), zero every row;
 * a table whose rows went back, whose frequencies changed or whose total_trans went back
 * restarted, and is counted from 0: what it counted since the restart is kept, the time between
 * the reading before and the restart is lost (restarts says how often, rs_* where).
 */
struct kvb_residency {
	size_t n;
	uint64_t *khz;        /* frequencies in order of first appearance */
	double *t;            /* summed time at each (10 ms units) */
	struct kvb_tis base;  /* the last readable table */
	double base_up;       /* its uptime */
	int have_base;
	int gap;              /* unreadable readings since base (offline, EBUSY, freed) */
	int restarts, restart_after_gap;
	double rs_from, rs_to;   /* uptimes of the readings around the first restart (-1: an end read) */
	double gap_from, gap_to; /* uptimes of the first unreadable reading and the last */
};
/* Feeds the next reading: t NULL when the table could not be read; uptime_s -1 when unknown. */
void kvb_residency_feed(struct kvb_residency *r, const struct kvb_tis *t, double uptime_s);
void kvb_residency_release(struct kvb_residency *r);

/* The platform's clusters (topology.clusters), or one cluster "cpu0" of CPU 0 when none are declared. */
struct kvb_cluster_set {
	size_t n;
	char **name;
	unsigned char (*cpus)[1024];
	int *first;   /* lowest CPU: whose cpufreq policy is read */
};
int kvb_clusters_get(const struct kvb_platform *plat, struct kvb_cluster_set *cs, struct kvb_error *err);
void kvb_clusters_release(struct kvb_cluster_set *cs);

/*
 * util instrument: turns "---"-separated /proc/stat snapshots into
 * util_min/mean/max (%) per CPU in out. A last snapshot without its
 * separator (cut by the kill) is ignored. Returns KVB_OK, or KVB_EINPUT with why filled
 * when fewer than two snapshots are usable.
 */
enum kvb_err kvb_util_from_snapshots(const char *text, struct kvb_metrics *out, char *why, size_t why_len);

/*
 * Events trace-cmd record says it lost when it stopped (its stdout), summed over CPUs; summary
 * gets "CPU 0: 750319, CPU 2: 12". Formats (trace-cmd tracecmd/trace-record.c): since 2.6 (2015)
 * "CPU N: X events lost[ Y events lost due to commit overrun]" ("bytes lost" for a few weeks);
 * before, "Kernel buffer statistics" with each CPU's stats ("CPU: N", "overrun: X",
 * "commit overrun: Y", "dropped events: Z").
 */
long long kvb_trace_cmd_lost(const char *out, char *summary, size_t n);

/* How the util sampler kept its interval, from its output ("# sampler HOW", "uptime S" lines). */
struct kvb_util_pace {
	char how[160];       /* "sleep 0.100", "usleep 100000", "sleep 1 (... no fractional sleep)", or "" */
	int whole_seconds;   /* the board has no fractional sleep: it slept whole seconds */
	size_t reads;        /* snapshots with their uptime */
	double median_ms;    /* median time between reads (0 below 2) */
	double span_s;       /* first to last read */
	enum kvb_witness_verdict verdict; /* ok; disturbed: median < interval / 2 (a busy loop); changed:
					     median > 2 x interval + 20 ms, or whole seconds for a fractional interval */
};
void kvb_util_pace(const char *text, unsigned interval_ms, struct kvb_util_pace *out);

#endif
