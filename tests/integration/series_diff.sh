#!/usr/bin/env bash
# `kvbench diff --series` on a stored series without building kernels: results imported
# from CSV (boot column = the boot unit), variant_build rows written as `run --series`
# writes them. Six commits, two boots of three runs each; commit 3 doubles us/op.
. "$(dirname "$0")/lib.sh"
{
  echo "variant,workload,metric,value,units,lower_is_better,boot"
  for c in 0 1 2 3 4 5; do
    for b in 1 2; do
      for i in 0 1 2; do
        base=$(( c < 3 ? 70 : 140 ))
        # boot-to-boot and run-to-run noise, the same for every commit
        echo "c$c,sched_pipe,usecs_per_op,$(( base + (b == 1 ? 2 : -1) + i )).$c,us,1,$b"
      done
    done
  done
} >"$T/series.csv"
"$KVB" import csv "$T/series.csv" -d "$T/s.db" >/dev/null 2>"$T/e" || bad "import"
"$KVB" diff --series -d "$T/s.db" >"$T/out" 2>"$T/err"; rc=$?
check "not a series: exit 3" [ "$rc" = 3 ]
check "not a series: says run --series" grep -q "not built from git" "$T/err"
for c in 0 1 2 3 4 5; do
  sha=$(printf 'c%039d' "$c")
  sqlite3 "$T/s.db" "INSERT INTO variant_build(variant_id, repo, rev, commit_sha, subject, series_pos, config_hash)
    SELECT id, '/repo', '$sha', '$sha', 'commit $c', $c, '0123456789abcdef' FROM variant WHERE name = 'c$c'"
done
"$KVB" diff --series -d "$T/s.db" >"$T/out" 2>"$T/err"; rc=$?
cat "$T/out" >&2
check "diff --series exits 0" [ "$rc" = 0 ]
check "one shift" [ "$(grep -c '<< shift' "$T/out")" = 1 ]
check "the shift is at commit 3" grep -q '^ *3 *c00000000000.*commit 3 .*<< shift' "$T/out"
check "commit 3 is worse than the first and than its parent" grep -q 'commit 3 .*+[0-9.]*%\* worse *+[0-9.]*%\* worse' "$T/out"
check "commit 4 is worse than the first, not than its parent" grep -Eq 'commit 4 .*%\* worse *[-+][0-9.]*% (same|undecided)' "$T/out"
"$KVB" diff --series -d "$T/s.db" --format json >"$T/j" 2>"$T/err"
check "json: change point and verdicts" python3 - "$T/j" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))['series'][0]
c = {r["subject"]: r for r in g["commits"]}
ok = (c["commit 3"]["change_point"] and c["commit 3"]["vs_parent"] == "worse"
      and not any(r["change_point"] for s, r in c.items() if s != "commit 3")
      and abs(c["commit 3"]["vs_first_pct"] - 100) < 5 and g["metric"] == "usecs_per_op")
sys.exit(0 if ok else 1)
PY
"$KVB" diff --series -d "$T/s.db" --format csv >/dev/null 2>"$T/err"; rc=$?
check "diff --series -f csv: usage error" [ "$rc" = 2 ]
# usage errors of the JSON form (the ASan build finds a document left behind)
"$KVB" diff --series -d "$T/s.db" --format json --baseline c0 >/dev/null 2>"$T/err"; rc=$?
check "diff --series --format json --baseline: usage error (rc $rc)" [ "$rc" = 2 ]
check "it says the first commit is the baseline" grep -q "first commit is the baseline" "$T/err"
finish
