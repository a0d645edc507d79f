#!/bin/bash
# A real OpenSSH server on a free loopback port, for tests and bench scripts.
#
#   sshd-fixture.sh start DIR        keys, config, sshd; prints KEY=VALUE lines (also in DIR/env)
#   sshd-fixture.sh stop DIR         SIGKILL the sessions, SIGTERM the listener
#   sshd-fixture.sh restart DIR      stop, then start again with the same port, keys and config
#   sshd-fixture.sh signal DIR SIG   send SIG to every process of every open session (KILL: and wait until they are gone)
#                                    (the per-connection sshd and what runs under it), not the listener
#   sshd-fixture.sh sessions DIR     print "PID COMMAND" for every process of every open session
#
# DIR must not exist or be empty for `start`. It receives:
#   host_ed25519[.pub]      the server's host key
#   alt_host_ed25519[.pub]  a second host key the server does NOT use (for "changed key" tests)
#   id_ed25519[.pub]        the client key, authorised for the current user, no passphrase
#   authorized_keys         read by sshd on every login: append keys to authorise more
#   known_hosts             "[127.0.0.1]:PORT" with the server's key
#   platform.yaml           a kvbench platform reaching this server (connection type ssh)
#   sshd_config sshd.log sshd.pid env
# Sessions get HOME=DIR (sshd's SetEnv), so the developer's shell start-up files (root's
# ~/.bashrc runs for ssh commands) neither slow down nor change what tests and benches see.
# Environment for `start`:
#   SSHD_FIXTURE_SETENV  more NAME=VALUE words for the sessions (e.g. "PATH=/x/bin:/usr/bin:/bin");
#                        sshd honours only its first SetEnv line, so use this, not a SetEnv line
#   SSHD_FIXTURE_CONFIG  extra sshd_config lines
#   SSHD_FIXTURE_OWNER   a pid: a watchdog stops the server once that process is gone (a test
#                        that crashes or times out does not leave sshd behind)
# Servers listen on 127.0.0.1 only. Needs /usr/sbin/sshd (openssh-server) and ssh-keygen.
set -euo pipefail

SSHD=/usr/sbin/sshd

die() { echo "sshd-fixture: $*" >&2; exit 1; }

# Pids of every descendant of $1 (not $1 itself), from ps's pid/ppid table.
descendants() {
	ps -e -o pid=,ppid= | awk -v root="$1" '
		{ kids[$2] = kids[$2] " " $1 }
		END {
			n = 1; q[1] = root
			for (i = 1; i <= n; i++) {
				m = split(kids[q[i]], c, " ")
				for (j = 1; j <= m; j++) { q[++n] = c[j]; printf "%s ", c[j] }
			}
		}'
}

# True while $1 runs (a zombie waiting for a slow reaper counts as gone).
alive() {
	local s
	s=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
	[[ $s != Z* ]]
}

listener_pid() {
	[[ -s $1/sshd.pid ]] && cat "$1/sshd.pid"
}

write_config() {
	local dir=$1 port=$2
	cat >"$dir/sshd_config" <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $dir/host_ed25519
PidFile $dir/sshd.pid
UsePAM no
PermitRootLogin yes
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
AuthorizedKeysFile $dir/authorized_keys
StrictModes no
Subsystem sftp internal-sftp
LogLevel VERBOSE
MaxStartups 100
MaxSessions 50
SetEnv HOME=$dir ${SSHD_FIXTURE_SETENV:-}
${SSHD_FIXTURE_CONFIG:-}
EOF
}

# Starts sshd with DIR/sshd_config on $2; returns 0 once it listens, 1 if the port was taken.
try_start() {
	local dir=$1 port=$2 pid i
	rm -f "$dir/sshd.pid"
	: >>"$dir/sshd.log"
	local mark
	mark=$(wc -l <"$dir/sshd.log")
	setsid "$SSHD" -D -e -f "$dir/sshd_config" </dev/null >>"$dir/sshd.log" 2>&1 &
	pid=$!
	for ((i = 0; i < 100; i++)); do
		if tail -n +"$((mark + 1))" "$dir/sshd.log" | grep -q "Server listening on 127.0.0.1 port $port"; then
			echo "$pid" >"$dir/sshd.pid"
			return 0
		fi
		alive "$pid" || return 1
		sleep 0.05
	done
	kill "$pid" 2>/dev/null || true
	die "sshd did not start; see $dir/sshd.log"
}

write_env() {
	local dir=$1 port=$2
	cat >"$dir/env" <<EOF
SSHD_DIR=$dir
SSHD_PORT=$port
SSHD_USER=$(id -un)
SSHD_KEY=$dir/id_ed25519
SSHD_KNOWN_HOSTS=$dir/known_hosts
SSHD_PLATFORM=$dir/platform.yaml
SSHD_LOG=$dir/sshd.log
EOF
	cat "$dir/env"
}

cmd_start() {
	local dir=$1 port tries
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd)
	mkdir -p /run/sshd 2>/dev/null || true
	ssh-keygen -q -t ed25519 -N '' -C kvb-host -f "$dir/host_ed25519"
	ssh-keygen -q -t ed25519 -N '' -C kvb-alt-host -f "$dir/alt_host_ed25519"
	ssh-keygen -q -t ed25519 -N '' -C kvb-user -f "$dir/id_ed25519"
	cp "$dir/id_ed25519.pub" "$dir/authorized_keys"
	for ((tries = 0; tries < 30; tries++)); do
		port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
		write_config "$dir" "$port"
		if try_start "$dir" "$port"; then
			echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$dir/host_ed25519.pub")" >"$dir/known_hosts"
			cat >"$dir/platform.yaml" <<EOF
name: sshd-fixture
description: test sshd started by tests/integration/sshd-fixture.sh
connection:
  type: ssh
  host: 127.0.0.1
  port: $port
  user: $(id -un)
  key: $dir/id_ed25519
  known_hosts: $dir/known_hosts
  connect_timeout_s: 5
EOF
			write_env "$dir" "$port"
			if [[ -n ${SSHD_FIXTURE_OWNER:-} ]]; then
				setsid bash -c 'while kill -0 "$1" 2>/dev/null; do sleep 1; done; exec bash "$2" stop "$3"' \
					watchdog "$SSHD_FIXTURE_OWNER" "$0" "$dir" </dev/null >/dev/null 2>&1 &
			fi
			return 0
		fi
	done
	die "no free port found; see $dir/sshd.log"
}

cmd_signal() {
	local dir=$1 sig=$2 pid p i victims
	pid=$(listener_pid "$dir") || return 0
	victims=$(descendants "$pid")
	for p in $victims; do kill -s "$sig" "$p" 2>/dev/null || true; done
	# KILL returns once they are gone (their sockets closed), so the caller's next step
	# cannot race their exit on a loaded machine
	[[ $sig == KILL ]] || return 0
	for p in $victims; do
		for ((i = 0; i < 1500; i++)); do
			alive "$p" || break
			sleep 0.02
		done
	done
}

cmd_sessions() {
	local pid p
	pid=$(listener_pid "$1") || return 0
	for p in $(descendants "$pid"); do ps -o pid=,comm= -p "$p" 2>/dev/null || true; done
}

cmd_stop() {
	local dir=$1 pid i sessions
	pid=$(listener_pid "$dir") || return 0
	# Freeze the listener before its sessions go, so a client that sees its session die
	# cannot reconnect in the gap (it would otherwise get a fresh session at once); then
	# the sessions, then the listener itself: the port refuses once this returns.
	sessions=$(descendants "$pid")
	kill -s STOP "$pid" 2>/dev/null || true
	# shellcheck disable=SC2086
	for p in $sessions $(descendants "$pid"); do kill -s KILL "$p" 2>/dev/null || true; done
	kill -s KILL "$pid" 2>/dev/null || true
	for ((i = 0; i < 250; i++)); do
		alive "$pid" || break
		sleep 0.02
	done
	rm -f "$dir/sshd.pid"
}

cmd_restart() {
	local dir=$1 port
	# shellcheck disable=SC1091
	port=$(. "$dir/env" && echo "$SSHD_PORT")
	cmd_stop "$dir"
	for ((i = 0; i < 50; i++)); do
		try_start "$dir" "$port" && { write_env "$dir" "$port" >/dev/null; return 0; }
		sleep 0.1
	done
	die "cannot restart sshd on port $port; see $dir/sshd.log"
}

[[ $# -ge 2 ]] || die "usage: $0 start|stop|restart|sessions DIR | signal DIR SIG"
case $1 in
start) cmd_start "$2" ;;
stop) cmd_stop "$2" ;;
restart) cmd_restart "$2" ;;
sessions) cmd_sessions "$2" ;;
signal) [[ $# -eq 3 ]] || die "usage: $0 signal DIR SIG"; cmd_signal "$2" "$3" ;;
*) die "unknown command '$1'" ;;
esac
