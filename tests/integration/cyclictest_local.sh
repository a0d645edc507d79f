# The cyclictest workload run for real (Debian rt-tests) on the local target through the
# kvbench binary: per-thread and overall metrics with their classifiers, the p99 stored
# equal to one computed independently (awk) from the raw output kept as an artifact, and
# a priority that does not fit the policy refused before anything runs, and `platform check`
# reporting what cyclictest needs (root).
. "$(dirname "$0")/lib.sh"
db=$T/c.db
cat >"$T/a.yaml" <<'YAML'
workloads:
  - {name: cyclictest, id: fifo, params: {duration_s: 2, threads: 2, interval_us: 1000, histogram_us: 20000}}
  - {name: cyclictest, id: other, params: {duration_s: 2, threads: 1, interval_us: 500, policy: other, priority: 0, histogram_us: 20000}}
YAML
"$KVB" run "$T/a.yaml" -p local -d "$db" --rounds 1 --no-diff 2>"$T/err" >"$T/out"; rc=$?
check "cyclictest jobs run (rc $rc)" test "$rc" -eq 0
[ "$rc" -eq 0 ] || cat "$T/err" >&2
cls() { echo "json_extract(classifiers, '\$.$1')"; }
check "fifo job: 4 metrics x threads 0, 1, all" test "$(q "$db" "select count(*) from results where spec_id = 'fifo'")" = "12"
check "other job: 4 metrics x threads 0, all" test "$(q "$db" "select count(*) from results where spec_id = 'other'")" = "8"
check "thread classifiers" test "$(q "$db" "select group_concat(t, '|') from (select distinct $(cls thread) t from results where spec_id = 'fifo' order by t)")" = "0|1|all"
check "policy and interval_us classifiers as run" test "$(q "$db" "select group_concat(p || '@' || i, '|') from (select distinct $(cls policy) p, $(cls interval_us) i from results order by p)")" = "fifo@1000|other@500"
check "every latency is in us and lower is better" test "$(q "$db" "select count(*) from results where units <> 'us' or lower_is_better <> 1")" = "0"
# per thread: min <= avg <= max and min <= p99 <= max
bad_order=$(q "$db" "select count(*) from (select job_id, $(cls thread) t,
  max(case when metric = 'latency_min' then value end) mn, max(case when metric = 'latency_avg' then value end) av,
  max(case when metric = 'latency_max' then value end) mx, max(case when metric = 'latency_p99' then value end) p99
  from results group by job_id, t) where not (mn <= av and av <= mx and mn <= p99 and p99 <= mx)")
check "min <= avg <= max and min <= p99 <= max per thread" test "$bad_order" = "0"
# p99 of thread 1 recomputed from the kept raw output, independently of the C parser
raw=$(q "$db" "select a.path from artifact a join job j on j.id = a.job_id where j.spec_id = 'fifo' and a.kind = 'raw-output'")
want=$(awk '/^[0-9]/ { n++; b[n] = $1 + 0; c[n] = $3 + 0 } /^# Total:/ { tot = $4 + 0 } /^# Histogram Overflows:/ { of = $5 + 0 }
  END { need = (tot + of) * 0.99; if (need != int(need)) need = int(need) + 1
        for (r = 1; r <= n; r++) { cum += c[r]; if (cum >= need) { print b[r]; exit } } }' "$raw")
got=$(q "$db" "select cast(value as int) from results where spec_id = 'fifo' and metric = 'latency_p99' and $(cls thread) = '1'")
check "thread 1 latency_p99 ($got) equals the raw output's ($want)" test -n "$want" -a "$got" = "$want"
check "the command line kept with the output" grep -q '^\$ cyclictest -m -q -D2s -h20000 -t2 -i1000 -p80 --policy=fifo$' "$raw"
# a real-time priority with policy other would make cyclictest switch to fifo: refused
cat >"$T/b.yaml" <<'YAML'
workloads:
  - {name: cyclictest, params: {policy: other}}
YAML
"$KVB" agenda check "$T/b.yaml" 2>"$T/berr" >/dev/null; rc=$?
check "policy other with priority 80 refused (rc $rc)" test "$rc" -eq 3
check "message names the key" grep -q "priority: policy other runs without a real-time priority: give priority 0, not 80" "$T/berr"
# policy batch (or idle): cyclictest runs such threads as SCHED_OTHER ("policy: batch/other"),
# so a policy=batch classifier would not be what ran: refused
cat >"$T/p.yaml" <<'YAML'
workloads:
  - {name: cyclictest, params: {policy: batch, priority: 0}}
YAML
"$KVB" agenda check "$T/p.yaml" 2>"$T/perr" >/dev/null; rc=$?
check "policy batch refused (rc $rc)" test "$rc" -eq 3
check "message names the key and the policies" grep -q "workloads\[0\].params.policy: expected one of fifo|rr|other, got \"batch\"" "$T/perr"
check "cyclictest itself runs batch as other" sh -c "timeout 20 cyclictest -m -D1s -t1 -i1000 -p0 --policy=batch 2>&1 | grep -q 'policy: batch/other'"
# a measurement longer than the job's timeout fails the job at once, saying so
cat >"$T/t.yaml" <<'YAML'
config: {max_retries: 0}
workloads:
  - {name: cyclictest, params: {duration_s: 600}, timeout_s: 300}
YAML
"$KVB" run "$T/t.yaml" -p local -d "$T/t.db" --rounds 1 --no-diff >/dev/null 2>&1; rc=$?
check "too long a duration fails the job (rc $rc)" test "$rc" -eq 1
check "its error says why" test "$(q "$T/t.db" "select error from job")" = "duration_s 600 does not fit the job's timeout of 300 s with 30 s to spare: give the job a larger timeout_s"
# `platform check` asks the workloads' capabilities: cyclictest needs root, jankbench an Android target
"$KVB" platform check local >"$T/check" 2>&1
root=no; [ "$(id -u)" = 0 ] && root=yes
check "platform check: cyclictest root: $root" grep -q "^  cyclictest  *root: $root" "$T/check"
check "platform check: jankbench needs an Android target" grep -q "^  jankbench  *not runnable here: needs an Android (adb) target" "$T/check"
finish
