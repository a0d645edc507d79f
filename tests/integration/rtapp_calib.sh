#!/usr/bin/env bash
# rt-app's calibration outside every instrument window, and pLoad re-checked at the end of each
# round (issue 25 item 3). Real rt-app on the local target with a real-time meter (probe_sim
# writing absolute timestamps as it goes): the first rt-app job's window used to hold the run's
# calibration (11.9 s and 6 J against 3.5 s and 1.8 J for the others, in the issue); now every
# job's window is its own run. tests/sim/rtapp_capped.sh plays a board capped after the run
# calibrated (the real rt-app runs; its later calibrations report the first pLoad x 2).
. "$(dirname "$0")/lib.sh"
SIM=${KVB_BUILD_DIR:-build}/tests/sim/probe_sim
mkdir -p "$T/p" "$T/capbin"
cat >"$T/p/platform.yaml" <<YAML
name: rtcal
connection: {type: local}
workdir: $T/work
instruments:
  meter: {type: csv-command, command: ["$SIM", csv, --realtime, --rate, "100", --t0-ns, now], ready_timeout_ms: 20000}
YAML
agenda() { # agenda DRIFT_PCT
  cat <<YAML
config: {iterations: 2}
workloads:
  - name: rt-app
    params: {duration_s: 1, calibration: CPU0, pload_drift_pct: $1, tasks: [{name: t, period_us: 10000, duty_pct: 10}]}
YAML
}
agenda 1000 >"$T/a.yaml"
db=$T/a.db
"$KVB" run "$T/a.yaml" -p "$T/p" -d "$db" --rounds 1 --no-diff >/dev/null 2>"$T/err"; rc=$?
check "run ok (rc $rc)" test "$rc" -eq 0
[ "$rc" -eq 0 ] || cat "$T/err" >&2
check "both rt-app jobs ok" test "$(q "$db" "select count(*) from job where status = 'ok'")" = 2
check "the run calibrated once (a note of the first job)" test "$(q "$db" "select count(*) from event where message like '%rt-app calibrated on CPU0: pLoad = % ns%'")" = 1
# every window holds one 1 s rt-app run: the first is no longer longer by the calibration
check "the windows are alike (first $(q "$db" "select group_concat(round(duration_s, 2), ' s, ') from energy where chan_name = 'ch0'") s)" \
  test "$(q "$db" "select max(duration_s) - min(duration_s) < 0.5 from energy where chan_name = 'ch0'")" = 1
check "and the energies too" test "$(q "$db" "select max(energy_j) / min(energy_j) < 1.4 from energy where chan_name = 'ch0'")" = 1
check "pLoad re-checked at the end of the round: a witness of the round" \
  test "$(q "$db" "select count(*) from witnesses where kind = 'pload' and job_id is null and round = 1 and variant = 'default' and verdict = 'ok' and observed like 'pLoad % ns (%'")" = 1
# a board capped after the run calibrated: pLoad twice as high at the end of the round
ln -s "$(cd "$SRC" && pwd)/tests/sim/rtapp_capped.sh" "$T/capbin/rt-app"
agenda 10 >"$T/c.yaml"
cdb=$T/c.db
PATH="$T/capbin:$PATH" KVB_CAP_STATE="$T/cap" KVB_CAP_FACTOR=2 \
  "$KVB" run "$T/c.yaml" -p "$T/p" -d "$cdb" --rounds 1 --no-diff >/dev/null 2>"$T/cerr"; rc=$?
check "capped run ok (rc $rc)" test "$rc" -eq 0
check "the capped board's rt-app ran (first pLoad '$(cat "$T/cap" 2>/dev/null)')" test -s "$T/cap"
[ "$rc" -eq 0 ] || cat "$T/cerr" >&2
first=$(cat "$T/cap" 2>/dev/null)
check "a changed pload witness of the round" \
  test "$(q "$cdb" "select count(*) from witnesses where kind = 'pload' and round = 1 and verdict = 'changed' and detail like 'pLoad $first ns at start, % ns at end (+100.0 %%'")" = 1
check "an event of each rt-app job of the round" \
  test "$(q "$cdb" "select count(distinct job_id) from event where job_id is not null and message like '%pLoad $first ns at start, % ns at end%'")" = 2
check "the jobs keep their metrics" test "$(q "$cdb" "select count(*) from job where status = 'ok'")" = 2
"$KVB" diff -d "$cdb" --metric slack_mean >"$T/diff" 2>&1
check "diff footnotes the cells with it" grep -q "pLoad $first ns at start, .* ns at end" "$T/diff"
"$KVB" show witnesses -d "$cdb" >"$T/w" 2>&1
check "show witnesses lists it" grep -q "changed" "$T/w"
# a use case with util_min on an rt-app that does not read it (Debian's 1.0; rt-app#114): the job
# fails once, not max_retries + 1 times (the same binary answers the same at every attempt)
if ! grep -q util_min "$(command -v rt-app)"; then
  cat >"$T/u.yaml" <<YAML
config: {iterations: 1, max_retries: 2}
workloads:
  - name: rt-app
    params: {config: "$(cd "$SRC" && pwd)/tests/fixtures/field/rt-app-config/issues/rt-app-114-uclamp-phases.json"}
YAML
  "$KVB" run "$T/u.yaml" -p local -d "$T/u.db" --no-diff >/dev/null 2>"$T/uerr"; rc=$?
  check "util_min on an rt-app without it: the run fails (rc $rc)" test "$rc" -eq 1
  check "its job failed after 1 attempt, not 3 ($(q "$T/u.db" "select attempts from job"))" \
    test "$(q "$T/u.db" "select attempts || ' ' || status from job")" = "1 failed"
  check "and says why" grep -q "does not read them" "$T/uerr"
fi
finish
