#!/bin/sh
# rt-app on a board whose CPU is capped (thermal, or a frequency cap) after the run calibrated:
# first in PATH as `rt-app`, it runs the real rt-app ($KVB_REAL_RTAPP, default /usr/bin/rt-app)
# for everything. The first calibration (a config whose log_basename is "calibration", as
# kvbench writes it) is passed through and its pLoad kept in $KVB_CAP_STATE; every later one
# prints rt-app's "pLoad = Nns" line (on stderr, as rt-app does) with N = that first pLoad x
# $KVB_CAP_FACTOR: a CPU slowed to 1 / factor of its speed takes factor times as long per busy
# loop. The real rt-app still calibrates; only its number is the capped board's (no board here
# can be thermally capped, and this shared host's own pLoad varies too much to be the test).
real=${KVB_REAL_RTAPP:-/usr/bin/rt-app}
grep -q '"log_basename"[[:space:]]*:[[:space:]]*"calibration"' "$1" 2>/dev/null || exec "$real" "$@"
first=$(cat "$KVB_CAP_STATE" 2>/dev/null)
"$real" "$@" 2>"$KVB_CAP_STATE.err"
rc=$?
if [ -z "$first" ]; then
	sed -n 's/.*pLoad = \([0-9][0-9]*\)ns.*/\1/p' "$KVB_CAP_STATE.err" | tail -n 1 >"$KVB_CAP_STATE"
	cat "$KVB_CAP_STATE.err" >&2
	exit $rc
fi
awk -v n="$first" -v f="${KVB_CAP_FACTOR:-2}" '{
	if (match($0, /pLoad = [0-9]+ns/))
		$0 = substr($0, 1, RSTART - 1) sprintf("pLoad = %dns", n * f + 0.5) substr($0, RSTART + RLENGTH)
	print
}' "$KVB_CAP_STATE.err" >&2
exit $rc
