#!/usr/bin/env bash
# Smaller first-hour fixes (issue 18): a header-only CSV imports nothing (no empty run),
# a resume that runs no job does not lengthen the run, `platform new` leaves the base
# board's comments behind.
. "$(dirname "$0")/lib.sh"
printf 'variant,workload,metric,value\n\n' >"$T/h.csv"
"$KVB" import csv "$T/h.csv" -d "$T/h.db" >/dev/null 2>"$T/e1"; rc=$?
check "header-only CSV: exit 3 (rc $rc)" test "$rc" -eq 3
check "says nothing was imported" grep -q "h.csv: no rows after the header: nothing imported" "$T/e1"
check "and no run was created" test "$(q "$T/h.db" "select count(*) from run")" = 0
# an incomplete run (one variant's kernel is missing) has nothing a resume can run
fake_kernel "$T/Image"
mkdir -p "$T/plat" && printf '#!/bin/sh\nexit 0\n' >"$T/plat/flash" && chmod +x "$T/plat/flash"
printf 'name: hooked\nconnection: {type: local}\nflash: {method: command, command: flash}\n' >"$T/plat/platform.yaml"
printf 'config: {iterations: 1}\nworkloads: [{name: hackbench, params: {groups: 1, fds: 2, loops: 10}}]\n' >"$T/a.yaml"
"$KVB" run "$T/a.yaml" -p "$T/plat" -d "$T/r.db" --keep-going --no-diff -V "a=$T/Image" -V "b=$T/Missing" >/dev/null 2>&1
before=$(q "$T/r.db" "select finished_ns from run")
"$KVB" run --resume -d "$T/r.db" -p "$T/plat" --no-diff >/dev/null 2>"$T/e2"; rc=$?
after=$(q "$T/r.db" "select finished_ns from run")
check "the resume ran nothing (rc $rc)" grep -q "0 jobs to run" "$T/e2"
check "the run did not get longer ($before -> $after)" test -n "$after" -a "$after" -le "$before"
check "and ends with its last job" test "$after" = "$(q "$T/r.db" "select max(end_ns) from job")"
"$KVB" platform new myqemu --from qemu-x86_64 --dir "$T/p" >/dev/null 2>&1
f=$T/p/myqemu/platform.yaml
# the base's header comments are kept (a new user's try: they say how the board is built and
# what to set up), under a line saying whose they are; its description: key is not
check "platform new: the base's header comments kept" sh -c "grep -q '^# The comments below are qemu-x86_64.s' '$f' && grep -q '^# scripts/get-kernels fetches Debian.s cloud and generic kernels' '$f'"
check "  in the base's order, before name:" sh -c "test \"\$(grep -n '^# Debian kernels under QEMU' '$f' | cut -d: -f1)\" -lt \"\$(grep -n '^name:' '$f' | cut -d: -f1)\""
check "the base's description: key is gone" sh -c "! grep -q '^description:' '$f'"
check "a comment explaining a value stays with it" grep -q "ssh_port: 0 *# pick a free" "$f"
check "the new file loads" "$KVB" platform show "$f"
finish
