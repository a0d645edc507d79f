#!/usr/bin/env bash
# The uclamp thread's table from a stored result (issue 39 item 6: CI keeps a small check of the
# path `ctest -L thread` runs whole): tests/fixtures/thread/thread-run.csv is `kvbench export csv`
# of one complete scripts/thread run (docs/thread.md, README there). Imported into a fresh DB,
# `diff --layout wide --by cgroup_depth` must render the thread's table as measured: every pipe
# cell decided, uclamp in use worse at every level, uclamp built but unused within 1 %, the
# millisecond-printed totals (perf's total_time, hackbench's time) undecided *because* of their
# step and saying so; and scripts/thread-table's instructions per round trip from the same rows.
. "$(dirname "$0")/lib.sh"
db=$T/thread.db
"$KVB" import csv "$SRC/tests/fixtures/thread/thread-run.csv" -d "$db" >"$T/imp" 2>&1
check "the stored thread run imports" [ $? = 0 ]
"$KVB" diff -d "$db" --layout wide --by cgroup_depth --baseline uclamp-off --metric ops_per_sec \
  --metric total_time --metric time >"$T/out" 2>"$T/err"
check "diff renders (rc $?)" [ -s "$T/out" ]
cat "$T/out"
row() { # row METRIC LEVEL: the table line of that metric's level
  sed -n "/$1/,/^\$/p" "$T/out" | grep -E "^\|? *$2 " | head -1
}
for lvl in root level1 level2 level3; do
  r=$(row ops_per_sec $lvl)
  check "pipe $lvl: every variant's cell decided ($r)" sh -c "echo '$r' | grep -q worse && ! echo '$r' | grep -q undecided"
done
tt=$(sed -n '/total_time/,/^$/p' "$T/out")
check "total_time: an undecided cell says the tool's step is too coarse, and names usecs_per_op" \
  sh -c "! echo '$tt' | grep 'undecided' | grep -qv 'too coarse; see usecs_per_op'"
hb=$(sed -n '/hackbench/,/^$/p' "$T/out")
r=$(echo "$hb" | grep -E "^\| root ")
check "hackbench root: both undecided cells (1.5 steps of 1 ms) say the step is too coarse, none asks for boots" \
  sh -c "[ \$(echo '$r' | grep -o 'too coarse' | wc -l) = 2 ] && ! echo '$r' | grep -q 'boots)'"
r=$(echo "$hb" | grep -E "^\| level3 ")
check "hackbench level3: uclamp-unused's +4.8 % (4 steps) still asks for boots" sh -c "echo '$r' | grep -q 'boots)'"
"$SRC/scripts/thread-table" "$db" >"$T/itab"
cat "$T/itab"
for lvl in root level1 level2 level3; do
  used=$(grep -A8 '^sched_pipe: instructions' "$T/itab" | grep "^| $lvl " | awk -F'|' '{print $5}' | sed 's/.*(\([-+0-9]*\)).*/\1/')
  unused=$(grep -A8 '^sched_pipe: instructions' "$T/itab" | grep "^| $lvl " | awk -F'|' '{print $4}' | sed 's/.*(\([-+0-9]*\)).*/\1/')
  check "pipe $lvl: uclamp in use costs more instructions ($used/op) than built but unused ($unused/op)" \
    [ "${used:-0}" -gt "$(( ${unused:-0} + 100 ))" ]
done
finish
