/*
 * The agenda: what to run (WA3 format, docs/design.md#words, notes/formats.md), plus
 * our `variants:` and per-workload `sweep:`.
 *
 *   config|global: iterations, execution_order, max_retries, runtime_params,
 *                  classifiers, workload_parameters, instruments/augmentations
 *   sections:      [{id, classifiers, runtime_params|params, workloads, group, iterations}]
 *   workloads:     [name | {name, id, label, iterations, params|workload_parameters,
 *                   runtime_params, classifiers, sweep, timeout_s}]
 *   variants:      [{name, kernel, sha256, dtb, initrd, cmdline, boot_image, modules,
 *                   runtime knobs...}]
 *
 * Loading expands sections x workloads x sweep combinations into specs; every
 * error of the file is reported in one pass through struct kvb_diag.
 */
#ifndef KVB_AGENDA_H
#define KVB_AGENDA_H

#include "config/doc.h"
#include "config/runtime.h"
#include "core/error.h"

struct kvb_workload_ops;
struct kvb_catalog;

/* KVB_ORDER_DUET: by_iteration within a round, the two variants at once on two boards (engine/duet.h). */
enum kvb_exec_order { KVB_ORDER_BY_ITERATION, KVB_ORDER_BY_SECTION, KVB_ORDER_BY_WORKLOAD, KVB_ORDER_RANDOM, KVB_ORDER_DUET };

/* One workload entry after section/global merge and sweep expansion. */
struct kvb_spec {
	char *id;             /* unique within the agenda: "[SECTION-]ID[;key=value...]" */
	char *workload;       /* registry name */
	char *label;          /* display label (defaults to workload) */
	char *section;        /* section id or NULL */
	int iterations;
	int warmup;           /* warm-up jobs before its first job of each boot, not compared; -1: the platform's default */
	unsigned timeout_s;   /* job timeout */
	cJSON *params;        /* owned object: workload parameters */
	struct kvb_runtime rt;/* merged knobs: global < section < workload < sweep */
	cJSON *classifiers;   /* owned object key -> string: global < section < workload < sweep */
	const struct kvb_workload_ops *ops;
};

/* The files a variant may name, in the order of kvb_variant.local[]. */
enum kvb_vfile { KVB_VF_KERNEL, KVB_VF_DTB, KVB_VF_INITRD, KVB_VF_BOOT_IMAGE, KVB_VF_MODULES, KVB_VF_N };

/* A kernel under test (kernel fields may be NULL when variants differ only in knobs). */
struct kvb_variant {
	char *name;
	char *kernel, *sha256, *dtb, *initrd, *cmdline, *boot_image, *modules;
	/* After fetching (engine): local files and their sha256, indexed by enum kvb_vfile. */
	char *local[5];
	char local_sha256[5][65];
	char *expected_release; /* uname -r the image should give (read from the image when fetched), or NULL */
	char *expected_version; /* uname -v likewise, or NULL */
	char *unusable;         /* why the variant cannot run (its build failed), or NULL: the engine fails it */
	struct kvb_runtime rt;  /* applied over every job's knobs (a variant wins: it is what is compared) */
	cJSON *raw;             /* owned copy of the entry as written */
	char *arg;              /* owned: the -V argument that made or changed it, or NULL (a second -V of the same
				 * name is an error naming both) */
};

/*
 * Most jobs (iterations x specs x variants) one agenda may expand to: the
 * plan holds every job in memory (~750 bytes and ~20 us each to build), so a
 * typo like iterations: 100000000 is an error at its key, not a hang.
 */
#define KVB_MAX_JOBS 100000

/* Re-runs of a host-disturbed job when the agenda sets no retry_disturbed (engine/run.c). */
#define KVB_RETRY_DISTURBED_DEFAULT 2

struct kvb_agenda {
	char *file;
	enum kvb_exec_order order;
	int max_retries;        /* default 2, not counting the first attempt */
	int retry_disturbed;    /* config.retry_disturbed: attempts more for a job the host disturbed; -1: default
				 * (KVB_RETRY_DISTURBED_DEFAULT, 0 in a duet) */
	int rounds;             /* config.rounds or 0 = platform default */
	int warmup;             /* config.warmup, or -1 = the platform's default (engine: 1 where rounds boot) */
	struct kvb_spec *specs;
	size_t nspecs;
	struct kvb_variant *variants;
	size_t nvariants;
	cJSON *instruments;     /* owned list of instrument names ("~x" disables), or NULL */
	cJSON *instrument_settings; /* owned {TYPE: {key: value}}: config: blocks named for an instrument type
				     * (WA3's plugin configuration, `ftrace: {events: [...]}`), checked against
				     * that type's keys; later blocks replace key by key. NULL when none. */
	cJSON *raw;             /* owned copy of the whole document (stored with the run) */
	const struct kvb_catalog *catalog; /* borrowed: the workloads the agenda was read against */
};

/* Variant field table (also used by -V NAME=KERNEL,key=value on the command line). */
extern const struct kvb_keydef kvb_variant_keys[];

/*
 * Loads the agenda in file, or, for a bare name that is not a file, the shipped one of that name
 * (./agendas/NAME, then the installed or source tree's agendas/: NAME, NAME.yaml, .yml, .json).
 * a->file is the file read. Workload entries are resolved in cat (config/catalog.h; kvbench's own
 * is engine/catalog.h's kvb_catalog, borrowed by a). KVB_EINPUT with d's messages.
 */
int kvb_agenda_load(struct kvb_agenda *a, const char *file, const struct kvb_catalog *cat, struct kvb_diag *d);
/* From an already parsed document (used by tests and fuzzers). */
int kvb_agenda_from_doc(struct kvb_agenda *a, const struct kvb_doc *doc, const struct kvb_catalog *cat,
			struct kvb_diag *d);
void kvb_agenda_release(struct kvb_agenda *a);

/* Adds or replaces a variant from "NAME=KERNEL[,cmdline=..,dtb=..,initrd=..,sha256=..]". */
int kvb_agenda_add_variant_arg(struct kvb_agenda *a, const char *arg, struct kvb_error *err);
/*
 * A knob a variant sets replaces the jobs' value of it in all that variant's jobs, and diff
 * compares it rather than grouping by it (groups.c). That loses nothing only when every job
 * sets the knob alike (config-wide, or nowhere); jobs that set it differently (a sweep, per
 * section) would all run the variant's value. KVB_EINPUT naming the file, the variant, the
 * knob and two jobs' values then, else KVB_OK. For a new run, after the -V variants are added
 * (not when a stored run is reloaded: it ran as it was).
 */
int kvb_agenda_check_variant_knobs(const struct kvb_agenda *a, struct kvb_error *err);
/* Ensures at least one variant ("default"). */
void kvb_agenda_default_variant(struct kvb_agenda *a);

const char *kvb_exec_order_name(enum kvb_exec_order o);

/* The keys `config:` (alias `global:`) takes, for readers that must tell kvbench's own keys from
 * WA3's (config/wa3_keys.c). Static; terminated by a NULL key. */
const struct kvb_keydef *kvb_agenda_config_keydefs(void);

#endif
