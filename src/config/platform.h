/*
 * A platform: one board kind and how to reach, flash, set up and measure it,
 * loaded from platforms/<name>/platform.yaml (JSON accepted) — docs/design.md#platforms.
 */
#ifndef KVB_PLATFORM_H
#define KVB_PLATFORM_H

#include "config/doc.h"
#include "config/runtime.h"

#include <stdio.h>

struct kvb_catalog;

struct kvb_cluster {
	char *name;  /* "little", "big" */
	char *cpus;  /* CPU list "0-3" */
	char *core;  /* core type "cortex-a53", or NULL */
};

/* One board of a pool (`boards:`, docs/design.md#pools-and-lava). */
struct kvb_board {
	char *name;            /* boards[i].name, or "<platform>#<i+1>"; owned */
	cJSON *conn;           /* owned: the platform's connection with the board's keys laid over it */
	const char *conn_type; /* backend name of conn */
};

struct kvb_platform {
	char *name;
	char *dir;            /* directory holding platform.yaml (hooks live beside it) */
	char *file;           /* path of the file loaded */
	struct kvb_doc doc;   /* the parsed file; doc.root stays valid for backends */
	const cJSON *conn;    /* connection mapping (borrowed from doc) */
	const char *conn_type;/* "local", "ssh", "adb", "qemu" */
	const cJSON *flash;   /* flash mapping or NULL */
	const char *flash_method; /* "none" when absent */
	int boot_timeout_s;   /* boot.timeout_s, default 180 */
	const char *boot_ready;   /* ready-check command (shell string from the platform author), or NULL */
	const char *boot_expect;  /* expected stdout of the ready check */
	struct kvb_cluster *clusters;
	size_t nclusters;
	struct kvb_runtime setup;  /* applied once per boot */
	const cJSON *instruments;  /* instruments mapping or NULL */
	const cJSON *thermal;      /* thermal: {max_temp_mc, refuse_capped} (borrowed, checked), or NULL */
	long long cgroup_rt_runtime_us; /* cgroup.rt_runtime_us: RT budget of each group kvbench creates; 0 = the
					 * parent's free budget (engine/cgroup.h) */
	const char *workdir;       /* directory on the target for kvbench's files, default /tmp/kvbench */
	const char *sysfs_root;    /* sysfs_root: prefix of /sys and /proc for every reader of them, "" = none */
	const char *arch;          /* arch: "x86", "arm64", "arm", "riscv" (make ARCH=), or NULL: not said */
	struct kvb_board *boards;  /* `boards:` (owned), or NULL: one board, reached by conn */
	size_t nboards;            /* with boards, conn/conn_type are boards[0]'s */
	const struct kvb_catalog *catalog; /* borrowed: the backends the file was checked against */
};

/* Directory searched for platforms: $KVB_PLATFORM_PATH (colon list), then ./platforms, then the shipped ones
 * (the installed share directory, or the source tree's from a build tree: core/datadir.h). */
/*
 * Loads a platform by name (searched in the platform path) or by path to a
 * .yaml/.json file or directory, checked against the backends of cat (config/catalog.h;
 * kvbench's own is engine/catalog.h's kvb_catalog, borrowed by p). All errors go to d;
 * returns KVB_EINPUT on any.
 */
int kvb_platform_load(struct kvb_platform *p, const char *name_or_path, const struct kvb_catalog *cat,
		      struct kvb_diag *d);
void kvb_platform_release(struct kvb_platform *p);

/* Prints the key tables kvb_platform_load checks a platform file against (top level, boot,
 * topology, clusters, boards, thermal, cgroup): `kvbench help platform.yaml`. */
void kvb_platform_keys_print(FILE *f);

/*
 * *out = p as seen by board i of its pool: a shallow copy (borrows everything
 * from p, never released) whose conn/conn_type are board i's. i beyond the
 * pool (or no boards:) gives p itself.
 */
void kvb_platform_board_view(const struct kvb_platform *p, size_t i, struct kvb_platform *out);

/*
 * Secrets in a platform file (ssh `passphrase`, a probe's `password` ...):
 * a key is secret when its whole name, or its last `_word`, is one of
 * passphrase, password, passwd, secret, token, api_key (case-insensitive).
 * Their values must never reach the results DB, logs or artifacts, and
 * kvb_platform_load warns (d->warnings) when a file holding one is readable
 * by group or others.
 */
int kvb_is_secret_key(const char *key);
/* Owned deep copy of root with the value of every secret key (at any depth) replaced by "<redacted>". */
cJSON *kvb_redact_secrets(const cJSON *root);

/* Resolves a platform name to its directory; NULL if not found. Owned. */
char *kvb_platform_find_dir(const char *name);
/* The user's platform directory, searched from any directory and where `platform new` writes:
 * $XDG_CONFIG_HOME/kvbench/platforms, default ~/.config/kvbench/platforms (owned). */
char *kvb_platform_user_dir(void);
/* 1 when dir (an existing directory) is on the platform search path, so `-p NAME` finds its NAME/
 * from any directory; 2 when only as ./platforms (from the current directory only); 0 when not. */
int kvb_platform_dir_searched(const char *dir);
/* Calls fn for each platform directory in the path (first one wins per name). */
void kvb_platform_each(void (*fn)(const char *name, const char *dir, void *arg), void *arg);

#endif
