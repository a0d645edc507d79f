#!/usr/bin/env bash
# Status is never upgraded without evidence (issue 26, docs/design.md#witnesses): a variant or run is
# ok only when every planned job of it is ok; `run --resume` plans failed and skipped jobs
# again and never clears an error it did not fix; no negative durations. The field case:
# a LAVA device failed (here: a flash hook that fails, the same engine path), `--resume` ran
# 0 units, exited 0, marked the failed variant ok with its error cleared and the run ok with
# half its jobs, and a later -V repair was refused as "nothing left to run".
. "$(dirname "$0")/lib.sh"
fake_kernel "$T/Image"
fake_kernel "$T/Image2"
mkdir -p "$T/plat"
# the "device" fails for a variant while $T/down-<variant> exists
printf '#!/bin/sh\nif [ -e "%s/down-$KVB_VARIANT" ]; then echo "device lost power" >&2; exit 1; fi\nexit 0\n' "$T" >"$T/plat/flash"
chmod +x "$T/plat/flash"
printf 'name: hooked\nconnection: {type: local}\nflash: {method: command, command: flash}\n' >"$T/plat/platform.yaml"
cat >"$T/a.yaml" <<'YAML'
config: {iterations: 2, warmup: 0}  # the checks count jobs; no warm-up job per boot
workloads: [{name: hackbench, params: {groups: 1, fds: 2, loops: 10}}]
YAML
db=$T/r.db
run() { "$KVB" run "$@" --no-diff >/dev/null 2>>"$T/log"; }
vstat() { q "$1" "select status || '|' || coalesce(error, '') from variant where name = '$2'"; }

# 1. a device failure, resumed while the device is still down, then repaired
touch "$T/down-patch"
run "$T/a.yaml" -p "$T/plat" -d "$db" --keep-going -V "base=$T/Image" -V "patch=$T/Image"; rc=$?
check "setup: patch failed, run exits 1 (rc $rc)" sh -c "[ $rc -eq 1 ] && [ '$(q "$db" "select status from variant where name='patch'")' = failed ]"
run --resume -d "$db" -p "$T/plat"; rc=$?
check "resume with the device still down exits 1, not 0 (rc $rc)" test "$rc" -eq 1
check "it tried the failed variant again (the hook ran for it)" \
  test "$(q "$db" "select count(*) from event where message like 'resume: 2 failed or skipped jobs planned again%'")" = 1
vs=$(vstat "$db" patch)
check "the failed variant stays failed with its error ($vs)" grep -q "^failed|flash hook .*device lost power" <<<"$vs"
check "the run is not ok with 2 of 4 jobs ($(q "$db" "select status from run"))" test "$(q "$db" "select status from run")" = incomplete
"$KVB" show variants -d "$db" -f csv >"$T/sv" 2>/dev/null
check "show variants says failed" grep -q '^1,patch,failed,' "$T/sv"
rm "$T/down-patch"
"$KVB" run --resume -d "$db" -p "$T/plat" -V "patch=$T/Image2" --no-diff >"$T/o3" 2>"$T/e3"; rc=$?
check "a -V repair is accepted after that resume, not refused as nothing to run (rc $rc)" test "$rc" -eq 0
check "and the variant is ok now, from its jobs" test "$(vstat "$db" patch)" = "ok|"
check "the run is ok with 4 of 4 jobs" test "$(q "$db" "select status || ' ' || (select count(*) from job where status = 'ok') from run")" = "ok 4"

# 2. the device comes back by itself: --resume alone runs the failed unit
touch "$T/down-patch"
run "$T/a.yaml" -p "$T/plat" -d "$T/2.db" --keep-going -V "base=$T/Image" -V "patch=$T/Image"
rm "$T/down-patch"
run --resume -d "$T/2.db" -p "$T/plat"; rc=$?
check "resume runs the skipped unit and completes (rc $rc)" test "$rc" -eq 0
check "patch's jobs ran: 2 ok" test "$(q "$T/2.db" "select count(*) from jobs where variant = 'patch' and status = 'ok'")" = 2

# 3. a variant whose jobs all fail (a knob the kernel lacks) is not ok, in show and in the report
cat >"$T/k.yaml" <<'YAML'
config: {iterations: 2, warmup: 0}  # the checks count jobs; no warm-up job per boot
workloads: [{name: hackbench, params: {groups: 1, fds: 2, loops: 10}}]
variants:
  - {name: a}
  - {name: b, sysctl: {kernel.kvbench_no_such_knob: 1}}
YAML
run "$T/k.yaml" -p local -d "$T/k.db" --keep-going; rc=$?  # past the preflight, which names the knob
check "0 of 2 jobs of b ok: exit 1 (rc $rc)" test "$rc" -eq 1
check "variant b is not ok ($(vstat "$T/k.db" b))" test "$(q "$T/k.db" "select status from variant where name='b'")" = incomplete
check "variant a is ok" test "$(q "$T/k.db" "select status from variant where name='a'")" = ok
"$KVB" report -d "$T/k.db" -o "$T/k.md" --format markdown >/dev/null 2>&1
check "the report's variants table says incomplete for b" grep -q "^| 1 | b | incomplete |" "$T/k.md"
run --resume -d "$T/k.db" --keep-going; rc=$?
check "resume runs b's failed jobs again, they fail again: exit 1 (rc $rc)" test "$rc" -eq 1
check "b's jobs keep their error" test "$(q "$T/k.db" "select count(*) from jobs where variant='b' and status='failed' and error like '%kvbench_no_such_knob%'")" = 2
check "the run stays incomplete" test "$(q "$T/k.db" "select status from run")" = incomplete

# 4. no impossible durations: every variant fails, resume runs nothing new
touch "$T/down-x"
run "$T/a.yaml" -p "$T/plat" -d "$T/d.db" --keep-going -V "x=$T/Image"
run --resume -d "$T/d.db" -p "$T/plat"
"$KVB" show runs -d "$T/d.db" -f csv >"$T/runs.csv" 2>/dev/null
dur=$(python3 -c "import csv; print(list(csv.DictReader(open('$T/runs.csv')))[0]['duration_s'])")
check "run duration is not negative ($dur)" python3 -c "import sys; d = '$dur'; sys.exit(not (d == '' or float(d) >= 0))"
check "skipped jobs have no times, not 1970" test "$(q "$T/d.db" "select count(*) from job where start_ns = 0 or end_ns = 0")" = 0
check "and no duration in the jobs view" test "$(q "$T/d.db" "select count(*) from jobs where duration_s is not null")" = 0
finish
