/*
 * The qemu target: a QEMU process kvbench owns, running the qemu-x86_64
 * board (scripts/qemu-board: Debian bookworm root filesystem, busybox init,
 * sshd for root), reached over ssh through QEMU's user network.
 *
 * Commands and files go through the ssh target (target/ssh.c): after each
 * boot the qemu target opens an ssh target of its own on a connection it
 * synthesises (host 127.0.0.1, the forwarded port, user root, the board's
 * key, a known_hosts holding only the board's host key for that port) and
 * forwards exec/push/pull to it.
 *
 * Connection keys (platform.yaml, connection: {type: qemu, ...}) are listed
 * in kvb_target_qemu.conn_keys. Without `kernel`, open() starts nothing: the
 * qemu flasher calls kvb_qemu_boot() for each variant.
 */
#ifndef KVB_QEMU_H
#define KVB_QEMU_H

#include "target/target.h"

#include <stdint.h>

extern const struct kvb_target_ops kvb_target_qemu;

/* The platform check of a qemu connection (ops.check, qemu_check.c): the topology's CPUs must be
 * guest CPUs connection.smp (default 2) boots; a cluster beyond them is an error at its cpus. */
void kvb_qemu_check(const struct kvb_platform *p, struct kvb_diag *d);

/* Printed on the guest console by the board's rc script once its network is up. */
#define KVB_QEMU_READY_MARKER "kvbench-board: ready"

/*
 * Boots kernel on t (a target opened with type qemu), powering off a guest
 * already running first, and returns once the console showed the ready
 * marker and an ssh command ran on the guest.
 *
 *  kernel   a vmlinuz, or a directory from scripts/get-kernels
 *  initrd   NULL: the board script builds (or reuses) the kernel's initrd
 *  cmdline  appended to "console=ttyS0 loglevel=4 panic=-1 random.trust_cpu=on root=/dev/vda"
 *           (a later root= wins); NULL or "" for none
 *  timeout_ms  for the whole boot, board build excepted (the first build of
 *           the board, about 30 s, gets its own 30 min bound)
 *  console_log_path  the guest's serial console is written there (truncated
 *           first); NULL: a file in the target's private directory
 *
 * Returns KVB_OK, or KVB_ETARGET when QEMU could not start, exited, the
 * kernel panicked (seen on the console; QEMU is stopped at once) or the
 * timeout passed; the message quotes the console's panic or last line and
 * names the console log, which is kept. KVB_EINPUT when kernel or initrd do
 * not exist or the board script fails.
 */
int kvb_qemu_boot(struct kvb_target *t, const char *kernel, const char *initrd, const char *cmdline,
		  uint64_t timeout_ms, const char *console_log_path, struct kvb_error *err);

/*
 * Powers the guest off: closes the ssh session and stops QEMU (SIGTERM, SIGKILL
 * after 5 s). The guest's state is disposable (snapshot=on disk, or a root in
 * memory), so the guest is not asked to shut down. A target with no guest
 * running is fine. Returns KVB_OK, or KVB_ETARGET when QEMU had to be killed
 * (it is gone either way).
 */
int kvb_qemu_poweroff(struct kvb_target *t, struct kvb_error *err);

/*
 * Names what the next boots are of for their progress line ("variant 'k', round 2"), printed
 * with the elapsed time while a boot takes more than 30 s (core/progress.h); NULL: the kernel's
 * file name. label is copied.
 */
void kvb_qemu_set_label(struct kvb_target *t, const char *label);

/* What the last boot did; pointers borrowed from t, valid until the next boot or close. */
struct kvb_qemu_status {
	int running;             /* 1 while a QEMU process is alive */
	int ssh_port;            /* forwarded 127.0.0.1 port, 0 when none */
	uint64_t marker_ms;      /* from QEMU start to the console's ready marker, ms */
	uint64_t ready_ms;       /* from QEMU start to the first ssh command that ran, ms */
	const char *console_log; /* console log of the last boot, or NULL */
	const char *kernel;      /* vmlinuz of the last boot, or NULL */
	const char *initrd;      /* initrd of the last boot, or NULL */
};
/* Fills st; returns KVB_EINPUT if t is not a qemu target. */
int kvb_qemu_status(const struct kvb_target *t, struct kvb_qemu_status *st);

/* Default board directory: ${XDG_CACHE_HOME:-$HOME/.cache}/kvbench/qemu-x86_64. Owned. */
char *kvb_qemu_default_board_dir(void);

#endif
