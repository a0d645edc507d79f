#!/usr/bin/env bash
# Versioned outputs and pandas (issue 31). Every JSON document kvbench writes (diff in each
# layout, diff --series, show of every listing, report --format json, the plot data embedded in
# report pages, query) matches results-schema/kvbench-json.schema.json (Debian's
# python3-jsonschema) and opens with schema_version; every field the schema names is documented
# in docs/outputs.md. The DB's schema version reads with a query (kvbench_schema), an older DB is
# migrated to it, a newer one is refused by reading and writing commands with both versions named
# and left as it was, a .dump copy (tables, no version) is refused saying how to set it. docs/outputs.md's pandas block runs as it is (python3-pandas) on a local
# quick-start DB with an energy capture imported.
. "$(dirname "$0")/lib.sh"
B=${KVB_BUILD_DIR:-build}
# Debian's python3 (python3-jsonschema, python3-pandas), not another one earlier on PATH (pyenv)
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
SCHEMA=$SRC/results-schema/kvbench-json.schema.json
CHECK="$PY $SRC/tests/integration/json_schema_check.py $SCHEMA"
SIM=$B/tests/sim/probe_sim
J=$T/json && mkdir -p "$J"

# the local quick start (real hackbench and perf on this host), then an energy capture in job 1
mkdir -p "$T/w/out"
(cd "$T/w" && "$KVB" run quickstart-local -p local -d out/results.db --no-diff) >"$T/run.log" 2>&1; rc=$?
check "quick start on the local platform (rc $rc)" test "$rc" -eq 0
db=$T/w/out/results.db
"$SIM" csv --channels 2 --rate 1000 --duration 4 --power const:1.5 -o "$T/probe.csv"
"$KVB" import energy "$T/probe.csv" --job 1 -d "$db" >/dev/null 2>&1
check "an energy capture imported into job 1" test "$(q "$db" "select count(*) from energy")" = 2

# more shapes: boots and an energy plot (import csv + energy), per-CPU and stacked plots, a series
{
  echo "variant,workload,metric,value,units,lower_is_better,iteration,boot"
  for i in 1 2 3 4; do echo "base,bench,time,$((10 + i)),s,1,$i,$(( i <= 2 ? 1 : 2 ))"; done
  for i in 1 2 3 4; do echo "new,bench,time,$((20 + i)),s,1,$i,$(( i <= 2 ? 1 : 2 ))"; done
} >"$T/k.csv"
"$KVB" import csv "$T/k.csv" -d "$T/k.db" >/dev/null 2>&1
"$KVB" import energy "$T/probe.csv" --job 1 -d "$T/k.db" >/dev/null 2>&1
{
  echo "variant,workload,metric,value,units,lower_is_better,iteration,boot,cpu,cluster,freq_mhz"
  for v in a b; do for i in 1 2 3; do for c in 0 1; do echo "$v,bench,util_mean,$((10 * i + c)),%,0,$i,1,$c,,"; done; done; done
  echo "a,bench,freq_residency,60,%,0,1,1,,little,500"; echo "a,bench,freq_residency,40,%,0,1,1,,little,1000"
  echo "b,bench,freq_residency,20,%,0,1,1,,little,500"; echo "b,bench,freq_residency,80,%,0,1,1,,little,1000"
} >"$T/cpu.csv"
"$KVB" import csv "$T/cpu.csv" -d "$T/cpu.db" >/dev/null 2>&1
{
  echo "variant,workload,metric,value,units,lower_is_better,boot"
  for c in 0 1 2 3; do for b in 1 2; do for i in 0 1 2; do
    echo "c$c,sched_pipe,usecs_per_op,$(( (c < 2 ? 70 : 140) + b + i )),us,1,$b"; done; done; done
} >"$T/s.csv"
"$KVB" import csv "$T/s.csv" -d "$T/s.db" >/dev/null 2>&1
for c in 0 1 2 3; do
  sqlite3 "$T/s.db" "INSERT INTO variant_build(variant_id, repo, rev, commit_sha, subject, series_pos, config_hash)
    SELECT id, '/repo', 'r$c', printf('c%039d', $c), 'commit $c', $c, '0123456789abcdef' FROM variant WHERE name = 'c$c'"
done

# the documents, by the $defs entry each must match
"$KVB" diff -d "$db" --format json >"$J/diff-long.json"
"$KVB" diff -d "$db" --layout wide --format json >"$J/diff-wide.json"
"$KVB" diff -d "$db" --by groups --format json >"$J/diff-by.json" 2>/dev/null
"$KVB" diff -d "$T/k.db" --format json >"$J/diff-boots.json"
"$KVB" diff -d "$T/k.db" --stat median --format json >"$J/diff-median.json"
check "diff json documents match \$defs/diff" $CHECK diff "$J"/diff-*.json
"$KVB" diff --series -d "$T/s.db" --format json >"$J/series.json" 2>/dev/null
check "diff --series json matches \$defs/series" $CHECK series "$J/series.json"
for l in runs variants jobs metrics events; do
  "$KVB" show $l -d "$db" --format json >"$J/show-$l.json"
  "$KVB" show $l -d "$T/k.db" --format json >"$J/show-$l-k.json"
  check "show $l json matches \$defs/show_$l" $CHECK show_$l "$J/show-$l.json" "$J/show-$l-k.json"
done
for d in "$db" "$T/k.db" "$T/cpu.db"; do
  n=$(basename "$d" .db)
  "$KVB" report -d "$d" -o "$J/report-$n.json" --format json
  "$KVB" report -d "$d" -o "$J/report-$n.html"
done
check "report json documents match \$defs/report" $CHECK report "$J"/report-*.json
check "every plot embedded in the report pages matches \$defs/embedded_plot" $CHECK embedded_plot "$J"/report-*.html
check "the pages hold dotbox, forest, lines, scatter and stack plots" test "$(cat "$J"/report-*.html | grep -o '"kind":"[a-z]*"' | sort -u | tr '\n' ' ')" = '"kind":"dotbox" "kind":"forest" "kind":"lines" "kind":"scatter" "kind":"stack" '
"$KVB" query -d "$db" --format json "select variant, metric, value, classifiers from results limit 5" >"$J/query.json"
check "query json matches \$defs/query (rows, unversioned)" $CHECK query "$J/query.json"
for f in "$J"/diff-long.json "$J"/series.json "$J"/show-runs.json "$J"/report-results.json; do
  check "$(basename "$f"): schema_version is the first field" test "$(sed -n 2p "$f" | tr -d '\t ')" = '"schema_version":1,'
done
# the checker itself: a document of another kind, or one without its version, fails
check "negative control: show jobs is not show runs" bash -c "! $CHECK show_runs '$J/show-jobs.json' >/dev/null"
$PY -c "import json,sys; d=json.load(open(sys.argv[1])); del d['schema_version']; json.dump(d, open(sys.argv[2], 'w'))" "$J/diff-long.json" "$T/nov.json"
check "negative control: a diff without schema_version fails" bash -c "! $CHECK diff '$T/nov.json' >/dev/null"
check "every field of the schema is documented in docs/outputs.md" $CHECK --doc "$SRC/docs/outputs.md"
check "--version names the JSON schema_version" grep -q "JSON schema_version 1$" <("$KVB" --version)

# the DB's version: a query, the number of migrations, what --version says
nmig=$(ls "$SRC"/results-schema/[0-9]*.sql | wc -l)
check "kvbench_schema: version $nmig (the migrations)" test "$(q "$db" "select version from kvbench_schema")" = "$nmig"
check "--version names it" grep -q "^results database schema $nmig," <("$KVB" --version)
# an older DB (all migrations but the last applied, as an older kvbench left it) is migrated
i=0
for f in "$SRC"/results-schema/[0-9]*.sql; do
  i=$((i + 1)); [ "$i" -lt "$nmig" ] && cat "$f"
done >"$T/old.sql"
{ cat "$T/old.sql"; echo "PRAGMA user_version = $((nmig - 1)); INSERT INTO run(id, started_ns, status) VALUES (1, 0, 'ok');"; } | sqlite3 "$T/old.db"
"$KVB" show runs -d "$T/old.db" >/dev/null 2>"$T/e0"; rc=$?
check "an older DB opens (rc $rc)" test "$rc" -eq 0
check "and is migrated: kvbench_schema says $nmig" test "$(sqlite3 "$T/old.db" "select version from kvbench_schema")" = "$nmig"
# a newer DB is refused by every command, reading ones too, and left as it was
cp "$db" "$T/new.db"
sqlite3 "$T/new.db" "PRAGMA user_version = $((nmig + 1))"
sum=$(sha256sum "$T/new.db" | cut -d' ' -f1)
for c in "show runs" "diff" "query select+1" "report -o $T/n.html" "import csv $T/k.csv"; do
  # shellcheck disable=SC2086
  set -- $c
  [ "$1" = query ] && set -- query "select 1"
  "$KVB" "$@" -d "$T/new.db" >/dev/null 2>"$T/e"; rc=$?
  check "newer DB: $1 exits 5 (rc $rc)" test "$rc" -eq 5
  check "newer DB: $1 names both versions" grep -q "schema version $((nmig + 1)) was written by a newer kvbench; this kvbench ([0-9.]*) reads versions up to $nmig" "$T/e"
done
check "newer DB: left as it was" test "$(sha256sum "$T/new.db" | cut -d' ' -f1)" = "$sum"
check "newer DB: no report written" test ! -e "$T/n.html"
# a copy through sqlite3's .dump has the tables but no user_version: refused saying so (it used to
# re-run 0001 into them, or read on), and usable again once the version is set as the message says
sqlite3 "$db" .dump | sqlite3 "$T/dumped.db"
"$KVB" show runs -d "$T/dumped.db" >/dev/null 2>"$T/e"; rc=$?
check "a .dump copy: show exits 5 (rc $rc)" test "$rc" -eq 5
check "a .dump copy: says why and what to do" grep -q "holds kvbench's tables but no schema version (PRAGMA user_version is 0, as in a copy made with sqlite3's .dump)" "$T/e"
"$KVB" import csv "$T/k.csv" -d "$T/dumped.db" >/dev/null 2>"$T/e"; rc=$?
check "a .dump copy: a writing command exits 5 too, not 'table run already exists' (rc $rc)" test "$rc" -eq 5 -a -z "$(grep 'already exists' "$T/e")"
sqlite3 "$T/dumped.db" "PRAGMA user_version = $nmig"
check "a .dump copy with its version set: show runs works" grep -q "quickstart-local" <("$KVB" show runs -d "$T/dumped.db")

# docs/outputs.md's pandas block, as it is, on the quick-start DB (kvbench on PATH)
awk '/<!-- pandas-example/{f=1;next} f&&/^```python/{g=1;next} g&&/^```/{exit} g' "$SRC/docs/outputs.md" >"$T/w/example.py"
check "docs/outputs.md has the pandas block" test -s "$T/w/example.py"
(cd "$T/w" && PATH=$(cd "$(dirname "$KVB")" && pwd):$PATH $PY - >"$T/pandas.out" 2>&1) <<'PY'
exec(open("example.py").read())
# what it read, checked against the database and each other
# 20 jobs: hackbench time, sched_pipe 3 metrics; job 1 also energy and power_mean of 2 channels
assert len(results) == 44 and set(results["variant"]) == {"1cpu", "2cpus"}, len(results)
assert (results.loc[results.metric == "time", "cls.groups"] == "4").all(), results.filter(like="cls.")
assert means.loc[("hackbench", "time")].notna().all(), means
row = comparison[(comparison.metric == "time") & (comparison.variant == "2cpus")].iloc[0]
st = stats[(stats.metric == "time") & (stats.variant == "2cpus")].iloc[0]
assert abs(row["perc_diff"] - st["diff_pct"]) < 1e-9 and abs(row["mean"] - st["mean"]) < 1e-12, (row, st)
assert row["baseline"] == "1cpu" and st["verdict"] in ("better", "worse", "same", "undecided"), (row, st)
# probe_sim: channel k at (k + 1) x 1.5 W for 4 s
assert energy.sort_values("chan_name")[["energy_j", "power_mean_mw"]].round(6).values.tolist() == [[6, 1500], [12, 3000]], energy
assert energy_per_variant.index.tolist() == [("1cpu", "ch0"), ("1cpu", "ch1")], energy_per_variant
assert len(jobs) == 20 and (jobs["status"] == "ok").all(), jobs
print("pandas: ok", version)
PY
rc=$?
check "the pandas block runs and reads what the DB holds (rc $rc)" grep -q "^pandas: ok $nmig$" "$T/pandas.out"
[ "$rc" -eq 0 ] || cat "$T/pandas.out" >&2
finish
