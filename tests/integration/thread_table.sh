#!/usr/bin/env bash
# The uclamp thread's table from a stored result (issue 39 item 6: CI keeps a small check of the
# path `ctest -L thread` runs whole): tests/fixtures/thread/thread-run.csv is `kvbench export csv`
# of one complete scripts/thread run (docs/thread.md, README there). Imported into a fresh DB,
# `diff --layout wide --by cgroup_depth` must render the thread's table as measured: every pipe
# cell decided, uclamp in use worse at every level, uclamp built but unused within 1 %, the
# millisecond-printed total (perf's total_time) undecided *because* of its step and saying so,
# hackbench's time (1000 loops: its step is 0.1 %) never; and scripts/thread-table's instructions per round trip from the same rows.
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
hb=$(sed -n '/^hackbench time/,/^$/p' "$T/out")
hcol() { # hcol LEVEL N: field N of the hackbench row LEVEL (| level | 4 means | 4 pairs of diff, verdict |)
  echo "$hb" | grep -E "^\| $1 " | awk -F'|' -v n="$2" '{gsub(/^ +| +$/, "", $n); print $n}'
}
# hackbench at 1000 loops (docs/thread.md#deciding-hackbenchs-cells-in-2-boots-measured): its 1 ms
# print step is 0.1 %, so no cell blames the step (at 100 loops two did) and every undecided one
# asks for boots; FAIR_GROUP_SCHED off (-12..-25 %) decided at levels 1-3; uclamp in use slower
# at every level
check "hackbench: no undecided cell blames the print step; each asks for boots" \
  sh -c "! echo '$hb' | grep -q 'too coarse' && [ \$(echo '$hb' | grep -o 'undecided[^|]*' | grep -vc 'boots)') = 0 ]"
for lvl in level1 level2 level3; do
  check "hackbench $lvl: FAIR_GROUP_SCHED off decided better ($(hcol $lvl 12))" [ "$(hcol $lvl 12)" = better ]
done
for lvl in root level1 level2 level3; do
  d=$(hcol $lvl 9 | tr -d '%*+')
  check "hackbench $lvl: uclamp in use slower ($(hcol $lvl 9))" awk -v d="$d" 'BEGIN { exit !(d > 0.5) }'
done
"$SRC/scripts/thread-table" "$db" >"$T/itab"
cat "$T/itab"
for lvl in root level1 level2 level3; do
  used=$(grep -A8 '^sched_pipe: instructions' "$T/itab" | grep "^| $lvl " | awk -F'|' '{print $5}' | sed 's/.*(\([-+0-9]*\)).*/\1/')
  unused=$(grep -A8 '^sched_pipe: instructions' "$T/itab" | grep "^| $lvl " | awk -F'|' '{print $4}' | sed 's/.*(\([-+0-9]*\)).*/\1/')
  check "pipe $lvl: uclamp in use costs more instructions ($used/op) than built but unused ($unused/op)" \
    [ "${used:-0}" -gt "$(( ${unused:-0} + 100 ))" ]
done
finish
