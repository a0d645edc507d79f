#!/usr/bin/env bash
# `kvbench diff` tells the truth about the run (issue 18): a failed baseline is an error
# naming the choices (never a silent stand-in), failed or partial variants are stated
# above the table, and "no results" says what exists and what happened to the variants.
. "$(dirname "$0")/lib.sh"
fake_kernel "$T/Image"
mkdir -p "$T/plat"
printf '#!/bin/sh\nexit 0\n' >"$T/plat/flash"
chmod +x "$T/plat/flash"
printf 'name: hooked\nconnection: {type: local}\nflash: {method: command, command: flash}\n' >"$T/plat/platform.yaml"
cat >"$T/a.yaml" <<'YAML'
config: {iterations: 2}
workloads: [{name: hackbench, params: {groups: 1, fds: 2, loops: 10}}]
YAML
run() { "$KVB" run "$T/a.yaml" -p "$T/plat" --keep-going --no-diff "$@" >/dev/null 2>&1; }
run -d "$T/1.db" -V "base=$T/Missing" -V "patch=$T/Image" -V "other=$T/Image"
"$KVB" diff -d "$T/1.db" >"$T/o1" 2>"$T/e1"; rc=$?
check "failed baseline: diff refuses (rc $rc, want 3)" test "$rc" -eq 3
check "it names the baseline and why it has no results" grep -q "baseline variant 'base' has no results here (failed: variant 'base' kernel: cannot read '$T/Missing'" "$T/e1"
check "it names the choices" grep -q "compare against another with --baseline: patch, other" "$T/e1"
check "and prints no table with a stand-in baseline" test ! -s "$T/o1"
"$KVB" diff -d "$T/1.db" --baseline patch >"$T/o2" 2>"$T/e2"; rc=$?
check "--baseline patch works (rc $rc)" test "$rc" -eq 0
check "the failed variant is stated above the table" grep -q "^note: variant 'base' failed: variant 'base' kernel" <(head -1 "$T/o2")
check "and said to be missing from it" grep -q "not in the table" "$T/o2"
run -d "$T/2.db" -V "base=$T/Image" -V "patch=$T/Missing"
"$KVB" diff -d "$T/2.db" --format markdown >"$T/o3" 2>"$T/e3"; rc=$?
check "failed non-baseline: table still printed (rc $rc)" grep -q "| hackbench" "$T/o3"
check "markdown: the note comes first" grep -q "^note: variant 'patch' failed" <(head -1 "$T/o3")
"$KVB" diff -d "$T/2.db" --format csv >"$T/o4" 2>"$T/e4"
check "csv: the note goes to stderr, not into the CSV" sh -c "! grep -q note '$T/o4' && grep -q \"variant 'patch' failed\" '$T/e4'"
run -d "$T/3.db" -V "a=$T/Missing" -V "b=$T/Missing2"
"$KVB" diff -d "$T/3.db" >"$T/o5" 2>"$T/e5"; rc=$?
check "nothing stored: exit 3 (rc $rc)" test "$rc" -eq 3
check "says the run's status and each variant's fate" grep -q "run 1 has no results (incomplete): variant 'a' failed: .*; variant 'b' failed" "$T/e5"
"$KVB" diff -d "$T/2.db" --metric nosuch >/dev/null 2>"$T/e6"; rc=$?
check "a metric filter that matches nothing: exit 3 as report's (rc $rc)" test "$rc" -eq 3
check "a metric filter that matches nothing lists the metrics (rc $rc)" grep -q "no results match --metric 'nosuch' (workloads: hackbench; metrics: time)" "$T/e6"
# csv and json carry p and Cliff's delta at full precision (the table shows them rounded)
{ echo variant,workload,metric,value,units,lower_is_better,boot
  for v in "a 10.0 10.3 9.8 10.1 9.9 10.2" "b 10.4 10.7 10.3 10.6 10.5 10.9"; do
    set -- $v; n=$1; shift; b=0
    for x in "$@"; do echo "$n,hackbench,time,$x,s,1,$((b / 2 + 1))"; b=$((b + 1)); done
  done; } >"$T/p.csv"
"$KVB" import csv "$T/p.csv" -d "$T/p.db" >/dev/null 2>&1
"$KVB" diff -d "$T/p.db" --format csv >"$T/p.out"
"$KVB" diff -d "$T/p.db" --format json >"$T/p.json"
py() { python3 -c "import csv, json, sys; c = list(csv.DictReader(open('$T/p.out')))[1]; j = json.load(open('$T/p.json'))['groups'][0]['variants'][1]; $1"; }
check "csv p is json's boot_welch_p, unrounded ($(py 'print(c["p"], j["boot_welch_p"])'))" \
  py 'sys.exit(not (float(c["p"]) == j["boot_welch_p"] and len(c["p"]) > 6))'
check "csv cliff is json's cliffs_delta ($(py 'print(c["cliff"], j["cliffs_delta"])'))" \
  py 'sys.exit(not (float(c["cliff"]) == j["cliffs_delta"]))'
# One value a side: nothing to compare. The table said "undecided" where json said "n<2" (a new
# user's finding): both say n<2.
printf 'variant,workload,metric,value,units,lower_is_better,iteration\na,w,t,5,s,1,1\nb,w,t,6,s,1,1\n' >"$T/one.csv"
"$KVB" import csv "$T/one.csv" -d "$T/one.db" >/dev/null 2>&1
"$KVB" diff -d "$T/one.db" >"$T/one.txt" 2>/dev/null
"$KVB" diff -d "$T/one.db" --format json >"$T/one.json" 2>/dev/null
check "one value a side: json n<2" python3 -c "import json,sys; d=json.load(open(sys.argv[1])); v=[v['verdict'] for g in d['groups'] for v in g['variants'] if v['variant'] == 'b']; assert v == ['n<2'], v" "$T/one.json"
check "one value a side: the table says n<2 too, not undecided" sh -c "grep -E '^\\| w .* b ' '$T/one.txt' | grep -q 'n<2 *|$'"
finish
