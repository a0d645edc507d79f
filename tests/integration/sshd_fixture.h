/*
 * A real OpenSSH server for tests: a C face on tests/integration/sshd-fixture.sh
 * (which bench and shell tests use directly). Each server lives in its own
 * temporary directory with fresh keys and listens on a free 127.0.0.1 port;
 * a watchdog stops it if the test process dies without releasing it.
 *
 *   struct kvb_sshd s;
 *   if (kvb_sshd_start(&s)) ...;                  // sshd runs
 *   char *plat = kvb_sshd_platform_file(&s, "p", (const char *[]){ "keepalive_s", "1", NULL });
 *   ... kvb_platform_load(&p, plat, &kvb_catalog, &d); kvb_target_open(&t, &p, &err) ...
 *   kvb_sshd_release(&s);                          // stops sshd, removes the directory
 *
 * Link the kvb_sshd_fixture library (tests/integration/tests.cmake).
 */
#ifndef KVB_SSHD_FIXTURE_H
#define KVB_SSHD_FIXTURE_H

#define KVB_SSHD_PATH_MAX 512

struct kvb_sshd {
	char dir[KVB_SSHD_PATH_MAX / 2];      /* the server's directory, see sshd-fixture.sh for its files */
	int port;                             /* 127.0.0.1 port it listens on */
	char user[64];                        /* the account the tests log in as (the current user) */
	char key[KVB_SSHD_PATH_MAX];          /* client private key (ed25519, no passphrase), authorised */
	char known_hosts[KVB_SSHD_PATH_MAX];  /* holds the server's key for [127.0.0.1]:port */
	char platform[KVB_SSHD_PATH_MAX];     /* platform.yaml reaching the server */
	char log[KVB_SSHD_PATH_MAX];          /* sshd's stderr (LogLevel VERBOSE) */
	char host_pub[KVB_SSHD_PATH_MAX];     /* the server's public host key */
	char alt_host_pub[KVB_SSHD_PATH_MAX]; /* another ed25519 public key the server does not use */
	int running;
};

/*
 * Creates a temporary directory and starts sshd in it. Sessions run with
 * HOME=that directory. Returns 0, or -1 after printing why to stderr.
 */
int kvb_sshd_start(struct kvb_sshd *s);
/*
 * Same, in a directory the caller created (it may already hold files, e.g.
 * bin/ for PATH). extra_env: more NAME=VALUE words for the sessions'
 * environment, or NULL; extra_config: more sshd_config lines, or NULL.
 */
int kvb_sshd_start_in(struct kvb_sshd *s, const char *dir, const char *extra_env, const char *extra_config);
/* Stops the server and every session, then starts it again on the same port with the same keys. */
int kvb_sshd_restart(struct kvb_sshd *s);
/* Sends sig ("KILL", "STOP", "CONT") to every process of every open session, not to the listener. */
void kvb_sshd_signal_sessions(struct kvb_sshd *s, const char *sig);
/* Kills the sessions and the listener. The directory stays. */
void kvb_sshd_stop(struct kvb_sshd *s);
/* Stops the server (if running) and removes its directory. Safe on a zeroed struct. */
void kvb_sshd_release(struct kvb_sshd *s);
/* Lines of the sshd log containing needle. */
int kvb_sshd_log_count(const struct kvb_sshd *s, const char *needle);
/*
 * Writes DIR/NAME.json, a platform whose connection reaches this server, and
 * returns its path (free() it). kv: NULL-terminated key, value pairs that
 * override or add connection keys; a NULL value removes the key. Values that
 * are whole integers are written as numbers. "sysfs_root" is the platform's
 * own key (a fake /sys and /proc tree), written beside connection.
 */
char *kvb_sshd_platform_file(const struct kvb_sshd *s, const char *name, const char *const *kv);
/* Runs argv locally (ssh-keygen, ssh-add ...); returns its exit status or -1. Output to stderr. */
int kvb_sshd_run(const char *const *argv, const char *const *env);

#endif
