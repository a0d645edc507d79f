/* Implements argv-only process spawning with capture, timeout and group kill. */
#include "core/spawn.h"
#include "core/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

void kvb_exec_result_init(struct kvb_exec_result *r)
{
	memset(r, 0, sizeof(*r));
	kvb_buf_init(&r->out);
	kvb_buf_init(&r->err);
}

void kvb_exec_result_release(struct kvb_exec_result *r)
{
	kvb_buf_release(&r->out);
	kvb_buf_release(&r->err);
}

static char **build_env(const char *const *extra)
{
	size_t n = 0, m = 0;
	char **env;
	while (environ[n])
		n++;
	while (extra && extra[m])
		m++;
	env = kvb_xcalloc(n + m + 1, sizeof(*env));
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(environ[i], '=');
		int overridden = 0;
		for (size_t j = 0; eq && j < m; j++) {
			size_t nl = (size_t)(eq - environ[i]);
			/* "NAME=VALUE" replaces NAME; a bare "NAME" removes it */
			if (!strncmp(extra[j], environ[i], nl) && (extra[j][nl] == '=' || extra[j][nl] == '\0'))
				overridden = 1;
		}
		if (!overridden)
			env[k++] = environ[i];
	}
	for (size_t j = 0; j < m; j++)
		if (strchr(extra[j], '='))
			env[k++] = (char *)extra[j];
	env[k] = NULL;
	return env;
}

/* Starts the child in its own process group; fills pipes for capture. */
static int start(const struct kvb_spawn_opts *o, pid_t *pid, int *outfd, int *errfd, struct kvb_error *err)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 };
	char **env = NULL;
	int rc;

	if (!o->argv || !o->argv[0])
		return kvb_error_set(err, KVB_ETARGET, "empty command");
	if ((!o->stdout_path && pipe2(po, O_CLOEXEC)) || (errfd && pipe2(pe, O_CLOEXEC)))
		return kvb_error_set(err, KVB_ETARGET, "pipe: %s", strerror(errno));
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	posix_spawnattr_setpgroup(&at, 0);
	{
		sigset_t def;
		sigemptyset(&def);
		sigaddset(&def, SIGINT);
		sigaddset(&def, SIGTERM);
		sigaddset(&def, SIGPIPE);
		posix_spawnattr_setsigdefault(&at, &def);
		sigset_t none;
		sigemptyset(&none);
		posix_spawnattr_setsigmask(&at, &none);
	}
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
	posix_spawn_file_actions_addopen(&fa, 0, o->stdin_path ? o->stdin_path : "/dev/null", O_RDONLY, 0);
	if (o->stdout_path)
		posix_spawn_file_actions_addopen(&fa, 1, o->stdout_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	else
		posix_spawn_file_actions_adddup2(&fa, po[1], 1);
	if (errfd)
		posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
	else
		posix_spawn_file_actions_addopen(&fa, 2, o->stderr_path ? o->stderr_path : "/dev/null",
						 O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (o->cwd)
		posix_spawn_file_actions_addchdir_np(&fa, o->cwd);
	env = build_env(o->env);
	rc = posix_spawnp(pid, o->argv[0], &fa, &at, (char *const *)o->argv, env);
	free(env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (po[1] >= 0)
		close(po[1]);
	if (pe[1] >= 0)
		close(pe[1]);
	if (rc) {
		if (po[0] >= 0)
			close(po[0]);
		if (pe[0] >= 0)
			close(pe[0]);
		return kvb_error_set(err, KVB_ETARGET, "cannot run '%s': %s", o->argv[0], strerror(rc));
	}
	*outfd = po[0];
	if (errfd)
		*errfd = pe[0];
	return KVB_OK;
}

static int reap(pid_t pid, int *status, int block)
{
	for (;;) {
		pid_t w = waitpid(pid, status, block ? 0 : WNOHANG);
		if (w == -1 && errno == EINTR)
			continue;
		return w == pid;
	}
}

int kvb_spawn_run(const struct kvb_spawn_opts *o, struct kvb_exec_result *r, struct kvb_error *err)
{
	pid_t pid;
	int fds[2] = { -1, -1 }, status = 0, done = 0, rc;
	uint64_t t0 = kvb_mono_ns(), kill_at = 0, gone_at = 0;
	int killed = 0, group_killed = 0;

	rc = start(o, &pid, &fds[0], &fds[1], err);
	if (rc)
		return rc;
	while (fds[0] >= 0 || fds[1] >= 0 || !done) {
		struct pollfd p[2];
		int np = 0, idx[2];
		uint64_t now = kvb_mono_ns();
		int wait_ms = 100;

		if (o->timeout_ms && !killed && now - t0 >= o->timeout_ms * 1000000ull) {
			r->timed_out = 1;
			killpg(pid, SIGTERM);
			killed = 1;
			kill_at = now + 2000000000ull;
		}
		if (o->cancel && *o->cancel && !killed) {
			killpg(pid, SIGTERM);
			killed = 1;
			kill_at = now + 2000000000ull;
		}
		if (killed == 1 && now >= kill_at) {
			killpg(pid, SIGKILL);
			killed = 2;
		}
		for (int i = 0; i < 2; i++) {
			if (fds[i] >= 0) {
				p[np].fd = fds[i];
				p[np].events = POLLIN;
				idx[np++] = i;
			}
		}
		if (np) {
			int n = poll(p, (nfds_t)np, wait_ms);
			if (n < 0 && errno != EINTR)
				break;
			for (int i = 0; n > 0 && i < np; i++) {
				char tmp[65536];
				ssize_t got;
				if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
					continue;
				got = read(p[i].fd, tmp, sizeof(tmp));
				if (got > 0) {
					kvb_buf_add(idx[i] ? &r->err : &r->out, tmp, (size_t)got);
				} else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
					close(fds[idx[i]]);
					fds[idx[i]] = -1;
				}
			}
		} else {
			kvb_sleep_ms(20);
		}
		if (!done && reap(pid, &status, 0)) {
			done = 1;
			gone_at = kvb_mono_ns();
		}
		/* A grandchild may keep the pipes open: once the leader is gone, read on for a
		 * second, then kill the group. Not at once: a command that started a job in the
		 * background (kvb_target_bg_start) exits before we read its output's end, and
		 * that job, which redirected its own output, lives in the same group. */
		if (done && !group_killed && (fds[0] >= 0 || fds[1] >= 0) && kvb_mono_ns() - gone_at > 1000000000ull) {
			killpg(pid, SIGKILL);
			group_killed = 1;
		}
	}
	if (!done)
		reap(pid, &status, 1);
	r->elapsed_ns = kvb_mono_ns() - t0;
	if (WIFEXITED(status)) {
		r->exit_code = WEXITSTATUS(status);
		r->term_signal = 0;
	} else {
		r->exit_code = -1;
		r->term_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	}
	if (r->timed_out)
		return kvb_error_set(err, KVB_ETARGET, "'%s' timed out after %llu ms", o->argv[0],
				     (unsigned long long)o->timeout_ms);
	return KVB_OK;
}

int kvb_spawn_bg(const struct kvb_spawn_opts *o, struct kvb_bgproc *p, struct kvb_error *err)
{
	return start(o, &p->pid, &p->out_fd, NULL, err);
}

int kvb_spawn_stop(struct kvb_bgproc *p, int sig, uint64_t wait_ms)
{
	return kvb_spawn_stop_killed(p, sig, wait_ms, NULL);
}

int kvb_spawn_stop_killed(struct kvb_bgproc *p, int sig, uint64_t wait_ms, int *killed)
{
	int status = 0;
	uint64_t t0 = kvb_mono_ns();
	if (killed)
		*killed = 0;
	if (p->pid <= 0)
		return -1;
	killpg(p->pid, sig);
	while (!reap(p->pid, &status, 0)) {
		if (kvb_mono_ns() - t0 > wait_ms * 1000000ull) {
			killpg(p->pid, SIGKILL);
			reap(p->pid, &status, 1);
			if (killed)
				*killed = 1;
			break;
		}
		kvb_sleep_ms(10);
	}
	if (p->out_fd >= 0)
		close(p->out_fd);
	p->out_fd = -1;
	p->pid = 0;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

const char *kvb_exec_describe(const struct kvb_exec_result *r, char *buf, size_t n)
{
	if (r->timed_out)
		snprintf(buf, n, "timed out");
	else if (r->exit_code >= 0)
		snprintf(buf, n, "exit status %d", r->exit_code);
	else
		snprintf(buf, n, "killed by signal %d", r->term_signal);
	return buf;
}
