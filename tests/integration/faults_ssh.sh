#!/usr/bin/env bash
# Target failures are job failures, not crashes: over a real sshd, a connection killed in
# the middle of a job -> that job is retried and the run goes on; a board that vanishes ->
# its variant fails after the deadline and the next variant still runs. Deterministic: every
# fault is confirmed (a perf process in a session; a refusing port) before kvbench goes on.
. "$(dirname "$0")/lib.sh"
fx="$(cd "$SRC" && pwd)/tests/integration/sshd-fixture.sh"
SSHD_FIXTURE_OWNER=$$ bash "$fx" start "$T/sshd" >/dev/null || { bad "sshd fixture starts"; finish; exit 1; }
trap 'bash "$fx" stop "$T/sshd" >/dev/null 2>&1; rm -rf "$T"' EXIT
plat=$T/sshd/platform.yaml
port=$(. "$T/sshd/env" && echo "$SSHD_PORT")
# Faults are injected where kvbench cannot race them: the board is taken away and brought
# back by the platform's flash hook, which kvbench runs (and waits for) before it connects
# for a variant; the hook returns only once the port refuses connections (or listens again).
cat >"$T/sshd/hook" <<HOOK
#!/usr/bin/env bash
refuses() { ! (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null; }
case "\$KVB_VARIANT" in
second)
  bash "$fx" stop "$T/sshd" >/dev/null 2>&1
  for i in \$(seq 600); do refuses && { echo refused >"$T/refused"; exit 0; }; sleep 0.05; done
  echo "port $port still accepts connections" >&2; exit 1 ;;
third)
  bash "$fx" restart "$T/sshd" >/dev/null 2>&1 || { echo "sshd did not restart" >&2; exit 1; }
  refuses && { echo "port $port does not listen after restart" >&2; exit 1; }
  exit 0 ;;
esac
HOOK
chmod +x "$T/sshd/hook"
cat >>"$plat" <<'YAML'
  reconnect_deadline_s: 6
boot: {timeout_s: 40}  # the hook (stop, restart) runs under this deadline: generous for a loaded machine
flash: {method: command, command: hook}
YAML
cat >"$T/a.yaml" <<'YAML'
config: {iterations: 3, max_retries: 2, warmup: 0}   # the cut must hit a measured job
workloads:
  - {name: sched_pipe, params: {loops: 400000}, timeout_s: 60}
variants: [{name: first}, {name: second}, {name: third}]
YAML
db=$T/f.db
"$KVB" run "$T/a.yaml" -p "$plat" -d "$db" --rounds 1 --no-diff >"$T/out" 2>"$T/err" &
run=$!
# cut every ssh session (the listener stays) while a job's perf runs on the board: the
# kill lands inside that job, whatever the machine's load
cut=0
for i in $(seq 1200); do
  if bash "$fx" sessions "$T/sshd" 2>/dev/null | grep -Eq "perf|sched-pipe"; then
    bash "$fx" signal "$T/sshd" KILL >/dev/null 2>&1; cut=1; break
  fi
  kill -0 "$run" 2>/dev/null || break
  sleep 0.05
done
check "a session was cut while perf ran" test "$cut" = 1
wait "$run"; rc=$?
check "run finishes with exit 1 (rc $rc)" test "$rc" -eq 1
check "first variant: 3 jobs ok" test "$(q "$db" "select count(*) from job j join variant v on v.id=j.variant_id where v.name='first' and j.status='ok'")" = "3"
check "the cut job was retried" test "$(q "$db" "select max(attempts) from job j join variant v on v.id=j.variant_id where v.name='first'")" -ge 2
check "the failed attempt kept its reason" test -n "$(q "$db" "select error from job_attempt where status='failed' limit 1")"
check "the hook saw the port refuse before second connected" test -s "$T/refused"
check "second variant failed" test "$(q "$db" "select status from variant where name='second'")" = "failed"
check "second variant's reason says the board is gone" sh -c "$(declare -f q); KVB='$KVB' q '$db' \"select error from variant where name='second'\" | grep -Eq 'target stopped answering|cannot connect|connection|reconnect'"
check "third variant still ran" test "$(q "$db" "select count(*) from job j join variant v on v.id=j.variant_id where v.name='third' and j.status='ok'")" = "3"
check "the retry warning is an event of the cut job" test \
  "$(q "$db" "select count(*) from event e join job j on j.id=e.job_id join variant v on v.id=j.variant_id where v.name='first' and e.level='warning' and e.message like '%attempt 1 failed%'")" -ge 1
"$KVB" show events -d "$db" >"$T/events" 2>&1
check "show events lists the job of each warning" grep -Eq "\| *[0-9]+ *\| warning *\| .*attempt 1 failed" "$T/events"
"$KVB" diff -d "$db" --metric ops_per_sec >"$T/diff" 2>&1
check "diff footnotes the cell measured by the retried job" sh -c "grep -Eq '\| first \[[0-9]+\] ' '$T/diff' && grep -Eq '^\[[0-9]+\] warning: first, sched_pipe, job [0-9]+: .*attempt 1 failed' '$T/diff'"
"$KVB" diff -d "$db" --metric ops_per_sec --layout wide >"$T/wide" 2>&1
check "diff --layout wide footnotes the cell too" grep -Eq '± [0-9.]+% \[[0-9]+\]' "$T/wide"
check "run marked incomplete" test "$(q "$db" "select status from run")" = "incomplete"
[ "$fail" -eq 0 ] || { echo "--- kvbench stderr:" >&2; cat "$T/err" >&2; }
finish
