#!/usr/bin/env bash
# Target failures are job failures, not crashes: over a real sshd, a connection killed in
# the middle of a job -> that job is retried and the run goes on; a board that vanishes ->
# its variant fails after the deadline and the next variant still runs.
. "$(dirname "$0")/lib.sh"
fx="$SRC/tests/integration/sshd-fixture.sh"
SSHD_FIXTURE_OWNER=$$ bash "$fx" start "$T/sshd" >/dev/null || { bad "sshd fixture starts"; finish; exit 1; }
trap 'bash "$fx" stop "$T/sshd" >/dev/null 2>&1; rm -rf "$T"' EXIT
plat=$T/sshd/platform.yaml
cat >>"$plat" <<'YAML'
  reconnect_deadline_s: 6
boot: {timeout_s: 6}
YAML
cat >"$T/a.yaml" <<'YAML'
config: {iterations: 3, max_retries: 2}
workloads:
  - {name: sched_pipe, params: {loops: 400000}, timeout_s: 60}
variants: [{name: first}, {name: second}, {name: third}]
YAML
db=$T/f.db
"$KVB" run "$T/a.yaml" -p "$plat" -d "$db" --rounds 1 --no-diff >"$T/out" 2>"$T/err" &
run=$!
# wait until the first job is running, then cut every ssh session (the listener stays)
for i in $(seq 200); do
  [ "$(q "$db" "select count(*) from job where status='running'" 2>/dev/null)" = "1" ] && break
  sleep 0.1
done
sleep 0.5
bash "$fx" signal "$T/sshd" KILL >/dev/null 2>&1
# once 'first' is done, take the board away for good: 'second' finds it gone either while
# booting (identity check) or in its first job, depending on timing; both must fail it
for i in $(seq 600); do
  [ "$(q "$db" "select count(*) from job j join variant v on v.id=j.variant_id where v.name='first' and j.status='ok'" 2>/dev/null)" = "3" ] && break
  sleep 0.05
done
bash "$fx" stop "$T/sshd" >/dev/null 2>&1
# the third variant needs the board back
for i in $(seq 900); do
  [ "$(q "$db" "select status from variant where name='second'" 2>/dev/null)" = "failed" ] && break
  sleep 0.1
done
bash "$fx" restart "$T/sshd" >/dev/null 2>&1 || bash "$fx" start "$T/sshd2" >/dev/null 2>&1
wait "$run"; rc=$?
check "run finishes with exit 1 (rc $rc)" test "$rc" -eq 1
check "first variant: 3 jobs ok" test "$(q "$db" "select count(*) from job j join variant v on v.id=j.variant_id where v.name='first' and j.status='ok'")" = "3"
check "the cut job was retried" test "$(q "$db" "select max(attempts) from job j join variant v on v.id=j.variant_id where v.name='first'")" -ge 2
check "the failed attempt kept its reason" test -n "$(q "$db" "select error from job_attempt where status='failed' limit 1")"
check "second variant failed" test "$(q "$db" "select status from variant where name='second'")" = "failed"
check "second variant's reason says the board is gone" sh -c "$(declare -f q); KVB='$KVB' q '$db' \"select error from variant where name='second'\" | grep -Eq 'target stopped answering|cannot connect|connection|reconnect'"
check "third variant still ran" test "$(q "$db" "select count(*) from job j join variant v on v.id=j.variant_id where v.name='third' and j.status='ok'")" = "3"
check "run marked incomplete" test "$(q "$db" "select status from run")" = "incomplete"
[ "$fail" -eq 0 ] || { echo "--- kvbench stderr:" >&2; cat "$T/err" >&2; }
finish
