# Helpers for shell integration tests: each test runs in its own temp dir and ends
# with the plain summary line "N passed, M failed".
set -u
KVB=${KVB:-build/kvbench}
SRC=${KVB_SOURCE_DIR:-.}
T=$(mktemp -d /tmp/kvb-test.XXXXXX)
# A board on an adb connection that has no adb_server_port (preflight's missing device) makes the
# adb client fork a server: give each test its own port and stop that server at exit, so none
# outlives the test on the shared default 5037 (one did, found after a suite run). Tests with
# their own adb fixture unset or override it.
ANDROID_ADB_SERVER_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export ANDROID_ADB_SERVER_PORT
trap 'adb -P "$ANDROID_ADB_SERVER_PORT" kill-server >/dev/null 2>&1; rm -rf "$T"' EXIT
[ -n "${KVB_KEEP_T:-}" ] && trap "echo kept $T" EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1" >&2; }
bad() { fail=$((fail + 1)); echo "FAIL $1" >&2; }
check() { # check NAME CONDITION-COMMAND...
  local name=$1; shift
  if "$@"; then ok "$name"; else bad "$name"; fi
}
finish() {
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ]
}
q() { "$KVB" query -d "$1" -f csv "$2" | tail -n +2; }
