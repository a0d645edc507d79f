#!/usr/bin/env bash
# Repairable runs (issue 18): `run --resume -V NAME=KERNEL` gives a failed variant new
# files (recorded with their sha256, identity checked by the engine as on any boot) and
# runs its jobs; -V for a variant with results, or an unknown one, is refused with why.
. "$(dirname "$0")/lib.sh"
fake_kernel "$T/Image"
fake_kernel "$T/Image2"
sha=$(sha256sum "$T/Image" | cut -d' ' -f1)
mkdir -p "$T/plat"
printf '#!/bin/sh\necho "$KVB_VARIANT $KVB_KERNEL" >> "%s/flashed"\n' "$T" >"$T/plat/flash"
chmod +x "$T/plat/flash"
printf 'name: hooked\nconnection: {type: local}\nflash: {method: command, command: flash}\n' >"$T/plat/platform.yaml"
cat >"$T/a.yaml" <<'YAML'
config: {iterations: 2, warmup: 0}  # the checks count jobs; no warm-up job per boot
workloads: [{name: hackbench, params: {groups: 1, fds: 2, loops: 10}}]
YAML
"$KVB" run "$T/a.yaml" -p "$T/plat" -d "$T/r.db" --keep-going --no-diff -V "base=$T/Image" -V "patch=$T/Imaeg" >/dev/null 2>&1
check "setup: patch failed" test "$(q "$T/r.db" "select status from variant where name='patch'")" = failed
# a platform given by path: --resume without -p reloads that file while it is there, else says to give -p
mv "$T/plat" "$T/plat.away"
"$KVB" run --resume -d "$T/r.db" -V "patch=$T/Image" >/dev/null 2>"$T/e0"; rc=$?
mv "$T/plat.away" "$T/plat"
check "a platform given by path that is gone: resume says to give -p (rc $rc)" grep -q "give its name or path with \`--resume -p\`" "$T/e0"
"$KVB" run --resume -d "$T/r.db" -V "nosuch=$T/Image" >/dev/null 2>"$T/e0b"; rc=$?
check "a platform given by path that is there: resume without -p reloads it (rc $rc)" sh -c "test $rc -eq 2 && grep -q \"run 1 has no variant 'nosuch'\" '$T/e0b'"
"$KVB" run --resume -d "$T/r.db" -p "$T/plat" -V "nosuch=$T/Image" >/dev/null 2>"$T/e1"; rc=$?
check "unknown variant refused (rc $rc)" test "$rc" -eq 2
check "naming the run's variants" grep -q "run 1 has no variant 'nosuch' (its variants: base, patch)" "$T/e1"
"$KVB" run --resume -d "$T/r.db" -p "$T/plat" -V "base=$T/Image2" >/dev/null 2>"$T/e2"; rc=$?
check "a variant with results keeps its kernel (rc $rc)" test "$rc" -eq 2
check "and the message says why" grep -q "variant 'base' of run 1 already has 2 finished jobs from kernel '$T/Image'; new files under the same name would put two kernels in one column" "$T/e2"
"$KVB" run --resume -d "$T/r.db" -p "$T/plat" -V "patch=$T/Missing" >/dev/null 2>"$T/e3"; rc=$?
check "a replacement that is missing too is refused (rc $rc)" test "$rc" -eq 3
check "and changes nothing" test "$(q "$T/r.db" "select kernel from variant where name='patch'")" = "$T/Imaeg"
"$KVB" run --resume -d "$T/r.db" -p "$T/plat" -V "patch=$T/Image,cpus=0" >/dev/null 2>"$T/e3b"; rc=$?
check "a knob in a repairing -V is refused (rc $rc)" test "$rc" -eq 2
check "saying files only" grep -q "cpus cannot change on resume" "$T/e3b"
check "and the variant keeps its knobs" test "$(q "$T/r.db" "select runtime_json from variant where name='patch'")" = "{}"
rm -f "$T/flashed"
"$KVB" run --resume -d "$T/r.db" -p "$T/plat" -V "patch=$T/Image" --no-diff >/dev/null 2>"$T/e4"; rc=$?
check "the repaired run completes (rc $rc)" test "$rc" -eq 0
check "only the repaired variant was flashed, with the new file" test "$(cat "$T/flashed")" = "patch $T/Image"
check "the variant row has the new kernel and its sha256" test "$(q "$T/r.db" "select kernel || ' ' || kernel_sha256 || ' ' || status from variant where name='patch'")" = "$T/Image $sha ok"
check "its jobs ran" test "$(q "$T/r.db" "select count(*) from jobs where variant='patch' and status='ok'")" = 2
check "the run is ok now" test "$(q "$T/r.db" "select status from run")" = ok
check "an event records old and new kernel" grep -q "variant 'patch' repaired on resume: kernel '$T/Imaeg' -> '$T/Image'" <(q "$T/r.db" "select message from event")
rm -f "$T/flashed"
"$KVB" run --resume -d "$T/r.db" -p "$T/plat" -V "patch=$T/Image2" --no-diff >"$T/o4b" 2>"$T/e4b"; rc=$?
check "-V on a finished run is refused, not ignored (rc $rc)" test "$rc" -eq 2
check "and the message says the run is finished" grep -q "run 1 is finished (status ok): nothing left to run, so -V 'patch=$T/Image2' has no failed variant to apply to" "$T/e4b"
check "nothing flashed" test ! -e "$T/flashed"
check "the variant keeps its kernel" test "$(q "$T/r.db" "select kernel from variant where name='patch'")" = "$T/Image"
"$KVB" run --resume -d "$T/r.db" -p "$T/plat" --no-diff >"$T/o4c" 2>/dev/null; rc=$?
check "without -V a finished run is still nothing to do (rc $rc)" sh -c "[ $rc -eq 0 ] && grep -q 'run 1 finished (status ok): nothing left to run' '$T/o4c'"
"$KVB" diff -d "$T/r.db" >"$T/o5" 2>/dev/null
check "diff compares both now" grep -q "| patch " "$T/o5"
"$KVB" run --resume -d "$T/none.db" -V "patch=$T/Image" >/dev/null 2>"$T/e6"; rc=$?
check "resume of a missing DB says so (rc $rc)" grep -q "none.db: no such results database, so no run to resume" "$T/e6"
check "and does not create it" test ! -e "$T/none.db"
"$KVB" import csv /dev/null -d "$T/empty.db" >/dev/null 2>&1
"$KVB" run --resume -d "$T/empty.db" >/dev/null 2>"$T/e7"
check "resume of a DB without runs says how to start one" grep -q "empty.db has no run to resume (start one with" "$T/e7"
finish
