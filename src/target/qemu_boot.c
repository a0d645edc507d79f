/* Implements booting a kernel on the qemu board: attempts watched through the console and ssh against their limits, power-off and status. */
#include "target/qemu_internal.h"
#include "core/progress.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* What a boot has shown so far, across its attempts (a port taken under us is tried again). */
struct boot_watch {
	const char *vmlinuz, *console;
	uint64_t timeout_ms, t0, deadline, banner_ns;
	int marker, attempts, tries;
	unsigned probe_ms;        /* the next readiness probe's wait (PROBE_TIMEOUT_MS, doubling) */
	struct kvb_buf con;       /* the console, re-read every poll */
	struct kvb_error serr;    /* the last ssh failure */
	int rc;                   /* the error of BOOT_FAILED */
};

enum boot_state { BOOT_WAITING, BOOT_READY, BOOT_FAILED, BOOT_PORT_TAKEN };

/* A port, the known_hosts for the board's key, and QEMU started. */
static int start_attempt(struct qemu_priv *p, const char *kh, const char *initrd_path, const char *cmdline,
			 struct boot_watch *w, struct kvb_error *err)
{
	int rc;
	p->port = (int)p->conf_port;
	if (!p->port && (p->port = kvb_qemu_free_port(err)) < 0) {
		rc = -p->port;
		p->port = 0;
		return rc;
	}
	rc = kvb_qemu_write_known_hosts(p, kh, err);
	if (!rc)
		rc = kvb_qemu_start(p, w->vmlinuz, initrd_path, cmdline, w->console, err);
	if (rc)
		return rc;
	w->t0 = kvb_mono_ns();
	w->deadline = w->t0 + w->timeout_ms * 1000000ull;
	kvb_error_clear(&w->serr);
	return KVB_OK;
}

/* The console: a panic, QEMU gone (the port taken under us: try again), or the ready marker. */
static enum boot_state check_console(struct qemu_priv *p, struct boot_watch *w, uint64_t now, struct kvb_error *err)
{
	int status = 0;
	if (strstr(w->con.data, PANIC_TEXT)) {
		char *line = kvb_qemu_console_line(&w->con, PANIC_TEXT);
		kvb_qemu_stop(p, 0);
		w->rc = kvb_error_set(err, KVB_ETARGET, "kernel '%s' panicked %.1f s into the boot: %s (console: %s)",
				      w->vmlinuz, (double)(now - w->t0) / 1e9, line, w->console);
		free(line);
		return BOOT_FAILED;
	}
	if (kvb_qemu_exited(p, &status)) {
		char *why = kvb_qemu_exit_reason(p, &w->con);
		/* Another process took the port between our check and QEMU's bind: pick again. */
		if (!p->conf_port && strstr(why, "host forwarding") && ++w->tries < 3) {
			free(why);
			return BOOT_PORT_TAKEN;
		}
		w->rc = kvb_error_set(err, KVB_ETARGET, "qemu exited (status %d) before the board was ready: %s (console: %s)",
				      WIFEXITED(status) ? WEXITSTATUS(status) : -1, why, w->console);
		free(why);
		return BOOT_FAILED;
	}
	if (!w->marker && strstr(w->con.data, KVB_QEMU_READY_MARKER)) {
		w->marker = 1;
		p->marker_ms = (now - w->t0) / 1000000;
	}
	return BOOT_WAITING;
}

/* After the marker: ready when sshd answers and `true` runs; an sshd that keeps refusing fails the boot. */
static enum boot_state check_ssh(struct kvb_target *t, struct qemu_priv *p, struct boot_watch *w,
				 struct kvb_error *err)
{
	const char *argv[] = { "true", NULL };
	struct kvb_exec_result r;
	if (!w->probe_ms)
		w->probe_ms = PROBE_TIMEOUT_MS;
	if (!w->marker)
		return BOOT_WAITING;
	if (!kvb_qemu_sshd_answers(p->port, (int)w->probe_ms)) {
		w->probe_ms = w->probe_ms * 2 > PROBE_MAX_MS ? PROBE_MAX_MS : w->probe_ms * 2;
		return BOOT_WAITING;
	}
	w->attempts++;
	if (!w->banner_ns)
		w->banner_ns = kvb_mono_ns();
	kvb_exec_result_init(&r);
	kvb_error_clear(&w->serr);
	if (!kvb_qemu_ssh_attach(t, p, &w->serr) && !kvb_target_run_ok(&p->ssh, argv, SSH_CHECK_TIMEOUT_MS, &r, &w->serr)) {
		kvb_exec_result_release(&r);
		p->ready_ms = (kvb_mono_ns() - w->t0) / 1000000;
		kvb_debug("qemu: ready after %llu ms (marker at %llu ms)", (unsigned long long)p->ready_ms,
			  (unsigned long long)p->marker_ms);
		return BOOT_READY;
	}
	kvb_exec_result_release(&r);
	kvb_qemu_ssh_detach(p);
	if (kvb_mono_ns() - w->banner_ns > LOGIN_GRACE_MS * 1000000ull) {
		kvb_qemu_stop(p, 0);
		w->rc = kvb_error_set(err, KVB_ETARGET,
				      "the board's sshd answers but ssh fails after %d attempts over %u s: %s "
				      "(console: %s)",
				      w->attempts, LOGIN_GRACE_MS / 1000, w->serr.msg, w->console);
		return BOOT_FAILED;
	}
	return BOOT_WAITING;
}

/* Ctrl-C, or the boot's time is up (the message says how far it got). */
static enum boot_state check_limits(struct kvb_target *t, struct qemu_priv *p, struct boot_watch *w,
				    struct kvb_error *err)
{
	if (t->cancel && *t->cancel) {
		kvb_qemu_stop(p, 0);
		w->rc = kvb_error_set(err, KVB_ETARGET, "boot of '%s' cancelled", w->vmlinuz);
		return BOOT_FAILED;
	}
	if (kvb_mono_ns() < w->deadline)
		return BOOT_WAITING;
	char *line = kvb_qemu_console_line(&w->con, NULL);
	kvb_qemu_stop(p, 0);
	if (!w->marker)
		w->rc = kvb_error_set(err, KVB_ETARGET,
				      "board did not come up within %llu ms (no \"%s\" on the console; last line: %s; "
				      "console: %s)",
				      (unsigned long long)w->timeout_ms, KVB_QEMU_READY_MARKER, line, w->console);
	else
		w->rc = kvb_error_set(err, KVB_ETARGET,
				      "board printed its ready marker but ssh did not answer within %llu ms (%d "
				      "attempts; last error: %s; console: %s)",
				      (unsigned long long)w->timeout_ms, w->attempts,
				      w->serr.msg[0] ? w->serr.msg : "no ssh banner", w->console);
	free(line);
	return BOOT_FAILED;
}

/* One look at a booting board: console, then ssh, then the limits. */
static enum boot_state poll_boot(struct kvb_target *t, struct qemu_priv *p, struct boot_watch *w,
				 struct kvb_error *err)
{
	uint64_t now = kvb_mono_ns();
	enum boot_state s;
	kvb_buf_reset(&w->con);
	kvb_buf_read_file(&w->con, w->console);
	if ((s = check_console(p, w, now, err)) != BOOT_WAITING || (s = check_ssh(t, p, w, err)) != BOOT_WAITING)
		return s;
	return check_limits(t, p, w, err);
}

/*
 * Boots kernel on the QEMU board: resolve the kernel and initrd, start QEMU, then poll
 * the console and sshd until the board answers ssh, panics, exits or runs out of time.
 */
int kvb_qemu_boot(struct kvb_target *t, const char *kernel, const char *initrd, const char *cmdline,
		  uint64_t timeout_ms, const char *console_log_path, struct kvb_error *err)
{
	struct qemu_priv *p = kvb_qemu_priv_of(t);
	struct kvb_error serr = { 0 };
	struct boot_watch w = { .timeout_ms = timeout_ms, .con = KVB_BUF_INIT };
	char *vmlinuz = NULL, *initrd_path = NULL, *console = NULL, *kh = NULL;
	enum boot_state s;
	struct kvb_progress pr = { 0 };
	char *title = NULL;
	int rc = KVB_OK;

	if (!p)
		return kvb_error_set(err, KVB_EINPUT, "kvb_qemu_boot: target is not an open qemu target");
	if (!kernel || (!kvb_is_file(kernel) && !kvb_is_dir(kernel)))
		return kvb_error_set(err, KVB_EINPUT, "no kernel '%s'", kernel ? kernel : "(null)");
	if (initrd && !kvb_is_file(initrd))
		return kvb_error_set(err, KVB_EINPUT, "no initrd '%s'", initrd);
	kvb_qemu_poweroff(t, &serr);
	rc = kvb_qemu_ensure_board(p, err);
	if (!rc)
		rc = kvb_qemu_resolve_boot_files(p, kernel, initrd, &vmlinuz, &initrd_path, err);
	if (rc)
		goto out;
	console = console_log_path ? kvb_xstrdup(console_log_path) : kvb_xasprintf("%s/console.log", p->run_dir);
	kh = kvb_xasprintf("%s/known_hosts", p->run_dir);
	kvb_qemu_set_last(&p->kernel, vmlinuz);
	kvb_qemu_set_last(&p->initrd, initrd_path);
	kvb_qemu_set_last(&p->cmdline, cmdline);
	kvb_qemu_set_last(&p->console, console);
	p->marker_ms = p->ready_ms = 0;
	w.vmlinuz = vmlinuz;
	w.console = console;
	title = p->label ? kvb_xasprintf("boot of %s", p->label)
			 : kvb_xasprintf("boot of %s", strrchr(vmlinuz, '/') ? strrchr(vmlinuz, '/') + 1 : vmlinuz);
	/* a boot of a slow board (an instruction clock on a loaded host: minutes) says which and how long */
	kvb_progress_start(&pr, title, 30, 0);
	do {
		if ((rc = start_attempt(p, kh, initrd_path, cmdline, &w, err)))
			goto out;
		while ((s = poll_boot(t, p, &w, err)) == BOOT_WAITING) {
			kvb_progress_tick(&pr, !w.marker  ? "kernel starting (no ready marker on the console yet)"
					       : !w.banner_ns ? "ready marker seen, waiting for sshd"
							      : "sshd answers, logging in");
			kvb_sleep_ms(w.marker ? 300 : 100);
		}
	} while (s == BOOT_PORT_TAKEN);
	rc = s == BOOT_READY ? KVB_OK : w.rc;
out:
	kvb_progress_end(&pr);
	if (rc && p->proc.pid)
		kvb_qemu_stop(p, 0);
	kvb_buf_release(&w.con);
	free(title);
	free(vmlinuz);
	free(initrd_path);
	free(console);
	free(kh);
	return rc;
}

/*
 * The guest's state is thrown away by design (the disk board boots with snapshot=on, the memory
 * board has no disk): there is nothing to shut down cleanly, so QEMU is stopped directly. Asking
 * the guest first (`busybox poweroff -f` over ssh) cost every round after a run's first one about
 * 10 s: a kernel without ACPI halts, the ssh command never returns and waited out its 5 s timeout
 * and then the attempt to kill it on a halted guest (issue 39; measured in docs/noise.md, "Boot times").
 */
int kvb_qemu_poweroff(struct kvb_target *t, struct kvb_error *err)
{
	struct qemu_priv *p = kvb_qemu_priv_of(t);
	int killed = 0;
	if (!p)
		return kvb_error_set(err, KVB_EINPUT, "kvb_qemu_poweroff: target is not an open qemu target");
	kvb_qemu_ssh_detach(p);
	if (!p->proc.pid)
		return KVB_OK;
	kvb_spawn_stop_killed(&p->proc, SIGTERM, POWEROFF_WAIT_MS, &killed);
	if (killed)
		return kvb_error_set(err, KVB_ETARGET, "qemu did not exit within %u ms of SIGTERM; killed it",
				     POWEROFF_WAIT_MS);
	return KVB_OK;
}

void kvb_qemu_set_label(struct kvb_target *t, const char *label)
{
	struct qemu_priv *p = kvb_qemu_priv_of(t);
	if (p)
		kvb_qemu_set_last(&p->label, label);
}

int kvb_qemu_status(const struct kvb_target *t, struct kvb_qemu_status *st)
{
	const struct qemu_priv *p = kvb_qemu_priv_of(t);
	memset(st, 0, sizeof(*st));
	if (!p)
		return KVB_EINPUT;
	st->running = p->proc.pid > 0;
	st->ssh_port = p->proc.pid > 0 ? p->port : 0;
	st->marker_ms = p->marker_ms;
	st->ready_ms = p->ready_ms;
	st->console_log = p->console;
	st->kernel = p->kernel;
	st->initrd = p->initrd;
	return KVB_OK;
}
