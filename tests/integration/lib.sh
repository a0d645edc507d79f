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
# fake_kernel FILE: an arm64 Image as libmagic reads it (the 64-byte header of
# Documentation/arch/arm64/booting.rst, magic "ARM\x64" at 56) followed by 4 KiB of noise, so every
# call's file differs; no banner, so the identity check compares the cmdline (a kernel kvbench cannot
# read the release of). Flashers refuse a file that is not a kernel (flash/kimage.h).
fake_kernel() {
  { head -c 56 /dev/zero; printf 'ARM\144\000\000\000\000'; head -c 4096 /dev/urandom; } >"$1"
}

# A procfs of our own for the host witness (KVB_HOST_PROC; engine/hostwatch.h) in $1: pressure
# and loadavg as files, `stat` a FIFO that host_stat_feed writes one reading at a time.
host_proc() {
  mkdir -p "$1/pressure"
  printf 'some avg10=1.00 avg60=1.00 avg300=1.00 total=1000\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n' >"$1/pressure/cpu"
  echo "0.50 0.40 0.30 1/100 4242" >"$1/loadavg"
  mkfifo "$1/stat"
}
# host_stat_feed DIR JOBS...: feeds DIR/stat for ever, one reading per reader (it waits, with
# fuser, until the reader that took the last one has closed the FIFO), so job attempt N's start
# and end readings are reads 2N-1 and 2N whatever the timing; the end reading of an attempt
# listed in JOBS (or, for @FILE, in FILE as read at that moment) has 100 steal of 200 ticks.
host_stat_feed() {
  local dir=$1 k=0 user=1000 steal=0 job list; shift
  while :; do
    k=$((k + 1)); job=$(((k + 1) / 2))
    if [ $((k % 2)) -eq 0 ]; then
      user=$((user + 100))
      case $1 in @*) list=$(cat "${1#@}") ;; *) list="$*" ;; esac
      case " $list " in *" $job "*) steal=$((steal + 100)) ;; *) user=$((user + 100)) ;; esac
    fi
    printf 'cpu  %d 0 100 5000 0 0 0 %d 0 0\ncpu0 1 0 0 0 0 0 0 0 0 0\n' "$user" "$steal" >"$dir/stat" || return
    while fuser -s "$dir/stat" 2>/dev/null; do sleep 0.01; done
  done
}
# A test that is not about the host witness, on a board on this host (QEMU): the host it sees is
# a quiet fake procfs (static PSI and /proc/stat, no board process: never disturbed, every quiet
# check passes at its first second), so CI's own load cannot leave its jobs out (issue 38: a job
# the host disturbs is re-run, then left out of results). host_witness.sh and bisect_busy.sh
# test the witness itself.
quiet_host() {
  mkdir -p "$T/quiet-proc/pressure"
  printf 'some avg10=0.00 avg60=0.00 avg300=0.00 total=1000\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n' \
    >"$T/quiet-proc/pressure/cpu"
  printf 'cpu  1000 0 100 5000 0 0 0 0 0 0\ncpu0 1000 0 100 5000 0 0 0 0 0 0\n' >"$T/quiet-proc/stat"
  echo "0.10 0.10 0.10 1/100 4242" >"$T/quiet-proc/loadavg"
  export KVB_HOST_PROC=$T/quiet-proc
}
