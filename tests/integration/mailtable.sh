#!/usr/bin/env bash
# The mailing-list table (issue 18, shape of shared/seeds 000/001): `diff --layout wide
# --by cgroup_depth` gives rows root, level1 and per variant mean(±cov%) and diff with
# the significance mark and the verdict (issue 14); --metric repeats; markdown and csv
# render the same numbers; the verdict legend follows the tables.
# Values are imported, so every number below is computed by hand:
#   base root 98..102: mean 100, sd sqrt(2.5)=1.581 -> CoV 1.58 %; patch 108..112: 110, 1.44 %
#   diff +10.00 %, fully separated n=5 vs 5: Welch p < 0.001 and exact Mann-Whitney p = 0.0079 -> *,
#   higher is better -> verdict better (one shared boot: run against run)
#   level1 base 90..94: 92, 1.72 %; patch 90,92,92,92,94: 92, sd sqrt(2)=1.414 -> 1.54 %, +0.00 %;
#     Welch 95 % CI of the difference: t(7.9) 2.31 x sqrt(2.5/5 + 2/5) = +-2.2, i.e. +-2.4 % of 92, wider
#     than the 1 % margin -> undecided, and the cell says so: "undecided (CI +-2.4 %)" (one boot: no
#     boots estimate)
#   hackbench time base 5.0,5.1,4.9,5.0,5.0: 5, sd 0.0707 -> 1.41 %; patch 4.0..: 4, 1.77 %, -20.00 %*,
#     lower is better -> better
. "$(dirname "$0")/lib.sh"
{
  echo "variant,workload,metric,value,units,lower_is_better,iteration,cgroup_depth"
  i=0; for x in 98 99 100 101 102; do i=$((i+1)); echo "base,sched_pipe,ops_per_sec,$x,ops/s,0,$i,0"; done
  i=0; for x in 108 109 110 111 112; do i=$((i+1)); echo "patch,sched_pipe,ops_per_sec,$x,ops/s,0,$i,0"; done
  i=0; for x in 90 91 92 93 94; do i=$((i+1)); echo "base,sched_pipe,ops_per_sec,$x,ops/s,0,$i,1"; done
  i=0; for x in 90 92 92 92 94; do i=$((i+1)); echo "patch,sched_pipe,ops_per_sec,$x,ops/s,0,$i,1"; done
  i=0; for x in 5.0 5.1 4.9 5.0 5.0; do i=$((i+1)); echo "base,hackbench,time,$x,s,1,$i,0"; done
  i=0; for x in 4.0 4.1 3.9 4.0 4.0; do i=$((i+1)); echo "patch,hackbench,time,$x,s,1,$i,0"; done
  i=0; for x in 1 2 3 4 5; do i=$((i+1)); echo "base,sched_pipe,usecs_per_op,$x,us,1,$i,0"; done
  i=0; for x in 1 2 3 4 5; do i=$((i+1)); echo "patch,sched_pipe,usecs_per_op,$x,us,1,$i,0"; done
} >"$T/seed.csv"
"$KVB" import csv "$T/seed.csv" -d "$T/s.db" >/dev/null 2>&1
"$KVB" diff -d "$T/s.db" --layout wide --by cgroup_depth --metric ops_per_sec --metric time >"$T/o1" 2>"$T/e1"; rc=$?
check "wide --by: exit 0 (rc $rc)" test "$rc" -eq 0
row() { grep "^| $1 " "$2" | sed -n "${3:-1}p" | tr -s ' '; }
check "root row: mean(±cov) per variant and the marked diff" test "$(row root "$T/o1")" = "| root | 100(±1.58%) | 110(±1.44%) | +10.00%* | better |"
check "level1 row: no change, no mark" test "$(row level1 "$T/o1")" = "| level1 | 92(±1.72%) | 92(±1.54%) | +0.00% | undecided (CI +-2.4 %, ~29 runs) |"
check "--metric repeated: the hackbench table too" test "$(row root "$T/o1" 2)" = "| root | 5(±1.41%) | 4(±1.77%) | -20.00%* | better |"
check "tables follow the --metric order, titled with the direction" test "$(grep -c 'is better' "$T/o1")" = 2 -a "$(grep -n 'higher is better' "$T/o1" | cut -d: -f1)" -lt "$(grep -n 'lower is better' "$T/o1" | cut -d: -f1)"
check "the verdict legend under the tables" grep -q "^verdict: better/worse = a real change" "$T/o1"
check "a metric not asked for is left out" sh -c "! grep -q usecs_per_op '$T/o1'"
check "headers name variant and statistic" grep -q "| cgroup_depth | base mean(±cov) | patch mean(±cov) | patch diff | patch verdict |" <(tr -s ' ' <"$T/o1")
"$KVB" diff -d "$T/s.db" --layout wide --by cgroup_depth --metric time --metric 'ops_*' --format markdown >"$T/o2" 2>/dev/null
check "markdown: a pasteable table" grep -qx "| root | 100(±1.58%) | 110(±1.44%) | +10.00%\* | better |" "$T/o2"
check "markdown: the legend too" grep -q "^verdict: better/worse" "$T/o2"
check "markdown: hackbench first when asked first" test "$(grep -m1 '^\*\*' "$T/o2")" = "**hackbench time (s)**"
"$KVB" diff -d "$T/s.db" --layout wide --by cgroup_depth --metric ops_per_sec --format csv >"$T/o3" 2>/dev/null
check "csv: full precision, diff, significance and verdict columns" grep -qx "sched_pipe,ops_per_sec,,0,100,1.58113883008419,110,1.4373989364401725,10,1,better" "$T/o3"
check "csv: level1 undecided" grep -qx "sched_pipe,ops_per_sec,,1,92,1.7186291631349888,92,1.5371886547533642,0,0,\"undecided (CI +-2.4 %, ~29 runs)\"" "$T/o3"
"$KVB" diff -d "$T/s.db" --layout wide --by cgroup_depth --metric ops_per_sec --format tsv >"$T/o3t" 2>/dev/null
check "tsv (a registry line, no producer change): the csv rows, tab-separated (csv quotes a field with a comma)" bash -c "tr '\t' ',' <'$T/o3t' | cmp -s - <(tr -d '\"' <'$T/o3')"
check "tsv: no box, no legend" sh -c "! grep -q '^[+|]' '$T/o3t' && ! grep -q '^verdict:' '$T/o3t' && test \$(wc -l <'$T/o3t') -gt 2"
check "csv: a verdict column in the header, no legend" sh -c "head -1 '$T/o3' | grep -q ',patch significant,patch verdict\$' && ! grep -q '^verdict:' '$T/o3'"
"$KVB" diff -d "$T/s.db" --by cgroup_depth --metric ops_per_sec --metric time >"$T/o4" 2>/dev/null
check "--by alone keeps its layout (one row per variant)" grep -q "| sched_pipe | ops_per_sec (ops/s) | *| patch " "$T/o4"
finish
