#!/usr/bin/env bash
# The uclamp thread's table from a stored result (issue 39 item 6: CI keeps a small check of the
# path `ctest -L thread` runs whole): tests/fixtures/thread/thread-run.csv is `kvbench export csv`
# of one complete scripts/thread run (docs/thread.md, README there). Imported into a fresh DB,
# `diff --layout wide --by cgroup_depth` must render the thread's table as measured: every pipe
# cell decided, uclamp in use worse at every level; perf's millisecond-printed total_time decided
# only where each side's runs print one value (else "too coarse; see usecs_per_op") and then in
# ops_per_sec's direction; hackbench's cells (SLUB kernels, 2000 loops: 1-4 % a run) undecided,
# each naming its CI and the boots that would decide it; and scripts/thread-table's
# instructions per round trip from the same rows.
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
# a decided total_time cell reads the same way as its ops_per_sec cell (lower time is better,
# more ops better); an undecided one (its steps) is checked above
for lvl in root level1 level2 level3; do
  for f in 8 10 12; do
    t=$(row total_time $lvl | awk -F'|' -v n=$f '{gsub(/^ +| +$/, "", $n); print $n}')
    o=$(row ops_per_sec $lvl | awk -F'|' -v n=$f '{gsub(/^ +| +$/, "", $n); print $n}')
    case $t in better|worse)
      check "total_time $lvl: '$t' is ops_per_sec's verdict ('$o')" [ "$t" = "$o" ] ;;
    esac
  done
done
hb=$(sed -n '/^hackbench time/,/^$/p' "$T/out")
check "hackbench: the table has its 4 levels" [ "$(echo "$hb" | grep -cE '^\| (root|level[123]) ')" = 4 ]
check "hackbench: none of its 12 cells is decided by 2 boots of 1-4 % runs" \
  sh -c "! echo '$hb' | grep -E '^\| (root|level)' | grep -qE '\| (better|worse|same) '"
check "hackbench: each of the 12 names its CI and the boots that would decide it" \
  [ "$(echo "$hb" | grep -oE 'undecided \(CI [^)]*(boots|runs)\)' | wc -l)" = 12 ]
"$SRC/scripts/thread-table" "$db" >"$T/itab"
cat "$T/itab"
for lvl in root level1 level2 level3; do
  used=$(grep -A8 '^sched_pipe: instructions' "$T/itab" | grep "^| $lvl " | awk -F'|' '{print $5}' | sed 's/.*(\([-+0-9]*\)).*/\1/')
  unused=$(grep -A8 '^sched_pipe: instructions' "$T/itab" | grep "^| $lvl " | awk -F'|' '{print $4}' | sed 's/.*(\([-+0-9]*\)).*/\1/')
  check "pipe $lvl: uclamp in use costs more instructions ($used/op) than built but unused ($unused/op)" \
    [ "${used:-0}" -gt "$(( ${unused:-0} + 100 ))" ]
done
finish
