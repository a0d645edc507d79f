#!/usr/bin/env bash
# Workload parameters that change what is measured are job classifiers, so `diff` never pools
# jobs that ran differently: two hackbench specs that differ only in datasize are two cells,
# not one cell of n = 4 (diff groups by workload, metric and classifiers, not by spec id);
# the same for cyclictest's threads/priority/duration_s and rt-app's tasks or config.
. "$(dirname "$0")/lib.sh"
cat >"$T/a.yaml" <<'YAML'
config: {iterations: 2}
workloads:
  - {name: hackbench, params: {groups: 1, fds: 2, loops: 10, datasize: 100}}
  - {name: hackbench, params: {groups: 1, fds: 2, loops: 10, datasize: 4096}}
YAML
"$KVB" run "$T/a.yaml" -p local -d "$T/a.db" --rounds 1 --no-diff >/dev/null 2>"$T/err"; rc=$?
check "run ok (rc $rc)" test "$rc" -eq 0
[ "$rc" -eq 0 ] || cat "$T/err" >&2
check "datasize stored as each job's classifier" test "$(q "$T/a.db" "select group_concat(d, '|') from (select distinct json_extract(classifiers, '\$.datasize') d from results order by 0 + d)")" = "100|4096"
"$KVB" diff -d "$T/a.db" --format csv >"$T/diff" 2>"$T/derr"
check "diff: two cells, one per datasize" test "$(grep -c '^hackbench,time (s),datasize=[0-9]*,default,' "$T/diff")" = 2
check "each of n = 2, none pooling the four jobs" test "$(grep -c '^hackbench,time (s),datasize=[0-9]*,default,2,' "$T/diff")" = 2
# hackbench's mode and ipc reach hackbench: rt-tests 2.4 refused `--datasize=100 --process --pipe`
# ("--datasize|-s requires an integer > 0": its value check reads argv[long-option index]), so
# every `ipc: pipe` job failed (docs/field-files.md#field-reports-replayed-for-the-uclamp-threads-path);
# the four shapes run now
cat >"$T/m.yaml" <<'YAML'
workloads:
  - {name: hackbench, params: {groups: 1, fds: 2, loops: 10, mode: process, ipc: socket}}
  - {name: hackbench, params: {groups: 1, fds: 2, loops: 10, mode: process, ipc: pipe}}
  - {name: hackbench, params: {groups: 1, fds: 2, loops: 10, mode: thread, ipc: socket}}
  - {name: hackbench, params: {groups: 1, fds: 2, loops: 10, mode: thread, ipc: pipe}}
YAML
"$KVB" run "$T/m.yaml" -p local -d "$T/m.db" --rounds 1 --no-diff >/dev/null 2>"$T/merr"; rc=$?
check "hackbench mode x ipc: run ok (rc $rc)" test "$rc" -eq 0
[ "$rc" -eq 0 ] || grep -m3 'failed' "$T/merr" >&2
check "the four shapes stored, one job each" test "$(q "$T/m.db" "select group_concat(d, '|') from (select distinct json_extract(classifiers, '\$.mode') || '/' || json_extract(classifiers, '\$.ipc') d from results order by d)")" = "process/pipe|process/socket|thread/pipe|thread/socket"
check "thread + pipe ran as threads (hackbench's own line)" grep -q "Running in threaded mode" "$(grep -l -- ' -T -p$' "$T"/m.db.d/run-1/job-*/hackbench.out | head -1)"
# cyclictest: threads, priority and duration_s are classifiers too (agenda check shows the plan)
cat >"$T/c.yaml" <<'YAML'
workloads:
  - {name: cyclictest, params: {duration_s: 1, threads: 2, priority: 90}}
YAML
"$KVB" run "$T/c.yaml" -p local -d "$T/c.db" --rounds 1 --no-diff >/dev/null 2>"$T/cerr"; rc=$?
if [ "$rc" -eq 0 ]; then
  check "cyclictest job classifiers threads/priority/duration_s" test "$(q "$T/c.db" "select distinct json_extract(classifiers, '\$.threads') || '/' || json_extract(classifiers, '\$.priority') || '/' || json_extract(classifiers, '\$.duration_s') from results")" = "2/90/1"
else
  check "cyclictest ran (rc $rc; needs root and rt-tests)" false
  cat "$T/cerr" >&2
fi
# rt-app: two specs whose tasks share a name but not a duty cycle are two cells (job classifier
# `tasks`, or `config` for a use-case file), not one pooled cell of n = 4
cat >"$T/r.yaml" <<'YAML'
config: {iterations: 2}
workloads:
  - {name: rt-app, params: {duration_s: 1, calibration: 100, tasks: [{name: t, period_us: 10000, duty_pct: 10}]}}
  - {name: rt-app, params: {duration_s: 1, calibration: 100, tasks: [{name: t, period_us: 10000, duty_pct: 80}]}}
YAML
"$KVB" run "$T/r.yaml" -p local -d "$T/r.db" --rounds 1 --no-diff >/dev/null 2>"$T/rerr"; rc=$?
check "rt-app run ok (rc $rc)" test "$rc" -eq 0
[ "$rc" -eq 0 ] || cat "$T/rerr" >&2
check "the tasks are each job's classifier" test "$(q "$T/r.db" "select count(distinct json_extract(classifiers, '\$.tasks')) from results where metric = 'run_mean'")" = 2
check "duration_s stored as run" test "$(q "$T/r.db" "select distinct json_extract(classifiers, '\$.duration_s') from results")" = 1
"$KVB" diff -d "$T/r.db" --metric run_mean --format csv >"$T/rdiff" 2>&1
check "diff: two run_mean cells of n = 2" test "$(grep -c '^rt-app,run_mean (us),.*,default,2,' "$T/rdiff")" = 2
# a workload entry's own runtime knobs are classifiers too (as applied): sched_pipe pinned to
# cpu 0 and to cpus 0-1 are two cells of n = 2, not one cell of n = 4
cat >"$T/k.yaml" <<'YAML'
config: {iterations: 2}
workloads:
  - {name: sched_pipe, params: {loops: 2000}, runtime_params: {cpus: "0"}}
  - {name: sched_pipe, params: {loops: 2000}, runtime_params: {cpus: "0-1"}}
YAML
"$KVB" run "$T/k.yaml" -p local -d "$T/k.db" --rounds 1 --no-diff >/dev/null 2>"$T/kerr"; rc=$?
check "cpus run ok (rc $rc)" test "$rc" -eq 0
[ "$rc" -eq 0 ] || cat "$T/kerr" >&2
check "cpus stored as each job's classifier" test "$(q "$T/k.db" "select group_concat(d, '|') from (select distinct json_extract(classifiers, '\$.cpus') d from results order by d)")" = "0|0-1"
"$KVB" diff -d "$T/k.db" --format csv >"$T/kdiff" 2>&1
check "diff: one cell per cpus, each of n = 2" test "$(grep -oE '^sched_pipe,usecs_per_op [^,]*,cpus=0(-1)?,default,2,' "$T/kdiff" | cut -d, -f3 | sort | tr '\n' ' ')" = "cpus=0 cpus=0-1 "
check "diff: no cell of n = 4" test "$(grep -c '^sched_pipe,.*,default,4,' "$T/kdiff")" = 0
# a knob a variant sets is compared, not grouped by: config pins every job to CPU 0, variant v2
# to CPU 1; each job's classifier says where it ran (v1 0, v2 1), and diff compares v2 with v1
# in one cell instead of two cells of one variant each
cat >"$T/v.yaml" <<'YAML'
config: {iterations: 2, runtime_params: {cpus: "0"}}
workloads: [{name: sched_pipe, params: {loops: 2000}}]
variants: [{name: v1}, {name: v2, cpus: "1"}]
YAML
"$KVB" run "$T/v.yaml" -p local -d "$T/v.db" --rounds 1 --no-diff >/dev/null 2>"$T/verr"; rc=$?
check "variant knob over a config knob: run ok (rc $rc)" test "$rc" -eq 0
[ "$rc" -eq 0 ] || cat "$T/verr" >&2
check "each job's cpus classifier is what it ran with" \
  test "$(q "$T/v.db" "select group_concat(c, ' ') from (select distinct variant || '=' || json_extract(classifiers, '\$.cpus') c from results order by 1)")" = "v1=0 v2=1"
"$KVB" diff -d "$T/v.db" --metric usecs_per_op --format csv >"$T/vdiff" 2>&1
check "diff: v2 compared with v1 in one cell (a verdict, not a second baseline)" \
  grep -qE '^sched_pipe,usecs_per_op [^,]*,v2,2,1,.*,"?(better|worse|same|undecided)' "$T/vdiff"
check "diff: one cell per variant, no cpus= label splitting them" test "$(grep -c '^sched_pipe,usecs_per_op' "$T/vdiff")" = 2
# jobs that set the knob differently (a sweep, two entries) while a variant sets it: refused
# before anything runs, also when the variant comes from -V
cat >"$T/vs.yaml" <<'YAML'
workloads: [{name: sched_pipe, params: {loops: 2000}, sweep: {cgroup_depth: [0, 1]}}]
variants: [{name: v1}, {name: v2, cgroup_depth: 2}]
YAML
"$KVB" agenda check "$T/vs.yaml" >/dev/null 2>"$T/vserr"; rc=$?
check "a variant knob over a sweep of it: exit 3 (rc $rc)" test "$rc" -eq 3
check "it names the file, the variant, the knob and two jobs' values" \
  grep -q "vs.yaml: variant 'v2' sets cgroup_depth, which the jobs set differently (.*: 0, .*: 1)" "$T/vserr"
"$KVB" run "$T/k.yaml" -p local -d "$T/vk.db" -V "pin=,cpus=1" --rounds 1 --no-diff >/dev/null 2>"$T/vkerr"; rc=$?
check "-V pin=,cpus=1 over two cpus entries: run refused, exit 3 (rc $rc)" test "$rc" -eq 3
check "and says why" grep -q "variant 'pin' sets cpus, which the jobs set differently ('sched_pipe1': 0, 'sched_pipe2': 0-1)" "$T/vkerr"
check "nothing was run" test ! -e "$T/vk.db"
finish
