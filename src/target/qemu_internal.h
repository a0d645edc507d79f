/*
 * The qemu target's own header, shared by target/qemu*.c and by nothing else: the board's state,
 * its time limits, and what one of these files calls in another.
 */
#ifndef KVB_TARGET_QEMU_INTERNAL_H
#define KVB_TARGET_QEMU_INTERNAL_H

#include "target/qemu.h"
#include "config/platform.h"
#include "core/buf.h"
#include "core/datadir.h"
#include "core/log.h"
#include "core/util.h"

/* random.trust_cpu=on: the crng is seeded from RDRAND (QEMU's -cpu max offers it) at boot. Without
 * it a kernel built without RANDOM_TRUST_CPU (tinyconfig) initialised its crng 1.06 s of guest time
 * after /init ran, and the board's sshd waited for it (issue 39: 2.2 CPU-s between the ready
 * marker and "Server listening" on the instruction-clock board; rapido-linux/rapido#44). */
#define BASE_CMDLINE "console=ttyS0 loglevel=4 panic=-1 random.trust_cpu=on root=/dev/vda"
/* Added on the instruction-clock board with one vCPU: the kernel ticks from the PIT (or HPET)
 * instead of calibrating the local APIC timer. That calibration busy-waits 2 x 100 ms of guest
 * time on rdtsc and `pause`, and under -icount each of those ends QEMU's translated block, so
 * the 200 ms cost 10-11 CPU-s of host time, 60 % of a boot of the thread's kernels (issue 39;
 * docs/noise.md, "Boot times on the deterministic board"; firecracker-microvm/firecracker#1017
 * saw the same 200 ms with KVM). sched_pipe's path length moved +0.03 %, within its spread.
 * Not on -smp 2, whose second CPU would then tick by broadcast IPIs (not measured). */
#define ICOUNT_UP_CMDLINE "nolapic_timer"
#define PANIC_TEXT "Kernel panic - not syncing"

/* The first build of the board runs mmdebstrap: about 30 s, far more on a slow mirror. */
#define BOARD_BUILD_TIMEOUT_MS (30u * 60 * 1000)
#define SCRIPT_TIMEOUT_MS (120u * 1000)

/* One ssh readiness attempt: QEMU's user network can swallow an early connection. A probe
 * that times out doubles the next one's wait, up to PROBE_MAX_MS: on a slow guest (an
 * instruction clock on a loaded host) every probe left waiting is one more unauthenticated
 * connection, and past sshd's MaxStartups (10) sshd drops new ones, so probing every 300 ms
 * with 3 s each kept it from ever sending a banner (seen: 900 s, "past MaxStartups"). */
#define PROBE_TIMEOUT_MS 3000u
#define PROBE_MAX_MS 30000u
#define SSH_CHECK_TIMEOUT_MS 15000u
/* QEMU's exit after SIGTERM (it exits at once; SIGKILL after this) */
#define POWEROFF_WAIT_MS 5000u

/* sshd answers but logins keep failing (wrong key, refused host key): give up after this. */
#define LOGIN_GRACE_MS 30000u

struct qemu_priv {
	char *board_dir;
	char *script;
	char *qemu_bin;
	char *accel, *cpu, *machine, *user;
	long long smp, memory_mb, conf_port;
	int icount;             /* clock: instructions */
	struct kvb_strv extra;
	char *run_dir;          /* private mkdtemp directory: known_hosts, qemu.log, default console */
	int board_checked;      /* board script `build` succeeded once */

	struct kvb_bgproc proc; /* pid 0 when no QEMU runs */
	int port;
	uint64_t marker_ms, ready_ms;
	char *kernel, *initrd, *cmdline, *console; /* last boot, owned */
	char *label;            /* what the next boots are of, for the progress line (kvb_qemu_set_label); owned */
	/* the board script's answer for the last kernel resolved (its vmlinuz and initramfs), reused
	 * while that kernel's path, size and mtime stay the same: every round of a variant asked the
	 * script again (~40 processes, 0.2-0.5 s a boot on a loaded host); owned */
	char *res_kernel, *res_vmlinuz, *res_initrd;
	long long res_size, res_mtime_ns;

	cJSON *ssh_conn;              /* synthesised connection mapping for the ssh target */
	struct kvb_platform ssh_plat; /* shallow copy of the platform with conn replaced; never released */
	struct kvb_target ssh;
	int ssh_open;
	char *counter_so, *counter_sock; /* the counting plugin and its socket when QEMU loads it, else NULL */
	char *counter_why;               /* why QEMU does not load it; owned */
};

/* qemu_vm.c */
int kvb_qemu_ensure_board(struct qemu_priv *p, struct kvb_error *err);
int kvb_qemu_free_port(struct kvb_error *err);
int kvb_qemu_sshd_answers(int port, int timeout_ms);
int kvb_qemu_exited(struct qemu_priv *p, int *status);
void kvb_qemu_ssh_detach(struct qemu_priv *p);
int kvb_qemu_stop(struct qemu_priv *p, uint64_t wait_ms);
int kvb_qemu_write_known_hosts(struct qemu_priv *p, const char *path, struct kvb_error *err);
int kvb_qemu_ssh_attach(struct kvb_target *t, struct qemu_priv *p, struct kvb_error *err);
char *kvb_qemu_console_line(const struct kvb_buf *c, const char *needle);
void kvb_qemu_set_last(char **slot, const char *v);
int kvb_qemu_start(struct qemu_priv *p, const char *vmlinuz, const char *initrd, const char *cmdline,
	       const char *console, struct kvb_error *err);
char *kvb_qemu_exit_reason(struct qemu_priv *p, const struct kvb_buf *console);
int kvb_qemu_resolve_boot_files(struct qemu_priv *p, const char *kernel, const char *initrd, char **vmlinuz,
		       char **initrd_path, struct kvb_error *err);

/* qemu_counter.c: the instruction counter (target.h ops->insn_counter) */
void kvb_qemu_counter_open(struct kvb_target *t, struct qemu_priv *p);
void kvb_qemu_counter_args(struct qemu_priv *p, struct kvb_strv *a);
void kvb_qemu_counter_free(struct qemu_priv *p);
int kvb_qemu_insn_counter(struct kvb_target *t, const char *dump_path, struct kvb_insn_count *c, struct kvb_error *err);
/* qemu.c */
struct qemu_priv *kvb_qemu_priv_of(const struct kvb_target *t);
char *kvb_qemu_escape(const char *s);

#endif
