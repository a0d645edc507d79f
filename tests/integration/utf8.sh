#!/usr/bin/env bash
# Every text output is valid UTF-8: bytes from a device or a CSV that are not UTF-8 (here a
# Latin-1 variant name and a classifier value with a lone continuation byte) come out of
# diff (table, markdown, csv, json), show, query and export as U+FFFD; the DB keeps the raw bytes.
. "$(dirname "$0")/lib.sh"
db=$T/u.db
printf 'variant,workload,metric,value,units,lower_is_better,iteration,boot,board\n' >"$T/in.csv"
for it in 1 2 3; do
  printf 'base,hackbench,time,1.%d,s,1,%d,1,ok\n' "$it" "$it" >>"$T/in.csv"
  printf 'caf\xe9,hackbench,time,2.%d,s,1,%d,1,ok\n' "$it" "$it" >>"$T/in.csv"
done
"$KVB" import csv "$T/in.csv" -d "$db" >"$T/imp" 2>&1; rc=$?
check "import a CSV with non-UTF-8 bytes (rc $rc)" test "$rc" -eq 0
valid() { python3 -c 'import sys; sys.stdin.buffer.read().decode("utf-8")' <"$1"; }
for f in table markdown csv json; do
  "$KVB" diff -d "$db" --format $f >"$T/diff.$f" 2>/dev/null
  check "diff --format $f is valid UTF-8" valid "$T/diff.$f"
  check "diff --format $f shows U+FFFD for the bad byte" grep -q "caf$(printf '\xef\xbf\xbd')" "$T/diff.$f"
done
check "diff --format json parses as JSON" python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$T/diff.json"
"$KVB" show variants -d "$db" >"$T/show" 2>/dev/null
check "show is valid UTF-8" valid "$T/show"
"$KVB" query -d "$db" "select name from variant" >"$T/query" 2>/dev/null
check "query is valid UTF-8" valid "$T/query"
"$KVB" export csv -d "$db" >"$T/export" 2>/dev/null
check "export csv is valid UTF-8" valid "$T/export"
check "the DB keeps the raw byte" test "$(q "$db" "select count(*) from variant where hex(name)='636166E9'")" = 1
finish
