#!/usr/bin/env bash
# kvbench report and the shared format registry through the real binary: every command
# takes the same --format names and rejects an unknown one with the list; show/query
# json is JSON; the report's sections in text formats; bad input (an empty DB, a run whose
# jobs all failed, a read-only DB of an older schema, an output path that cannot be
# written, a failure while writing) gives a message, an exit code and no half-written file.
. "$(dirname "$0")/lib.sh"
db=$T/k.db
{
  echo "variant,workload,metric,value,units,lower_is_better,iteration,boot"
  for i in 1 2 3 4; do echo "base,bench,time,$((10 + i)),s,1,$i,$(( i <= 2 ? 1 : 2 ))"; done
  for i in 1 2 3 4; do echo "new,bench,time,$((20 + i)),s,1,$i,$(( i <= 2 ? 1 : 2 ))"; done
} >"$T/k.csv"
"$KVB" import csv "$T/k.csv" -d "$db" >/dev/null

# One registry: the same names everywhere, an unknown one rejected with the list.
for cmd in "diff" "show runs" "query select+1" "report -o $T/x.html"; do
  # shellcheck disable=SC2086
  set -- $cmd
  [ "$1" = query ] && set -- query "select 1"
  "$KVB" "$@" -d "$db" --format bogus >"$T/o" 2>"$T/e"; rc=$?
  check "$1 --format bogus exits 2" test $rc -eq 2
  check "$1 --format bogus lists the formats" grep -q "formats: table, markdown, csv, tsv, json, html" "$T/e"
done
check "no report file after a usage error" test ! -e "$T/x.html"
"$KVB" show runs -d "$db" --format json >"$T/runs.json"
check "show --format json is JSON with the run" \
  python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['rows']; assert r[0]['run'] == 1 and r[0]['status'] == 'imported'" "$T/runs.json"
"$KVB" query -d "$db" --format json "select value, units, null as n from results order by value limit 1" >"$T/q.json"
check "query --format json keeps numbers, strings and null" \
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r == [{'value': 11, 'units': 's', 'n': None}], r" "$T/q.json"
"$KVB" query -d "$db" --format csv "select 0.1 + 0.2 as x" >"$T/q.csv"
check "query csv writes the double exactly" grep -qx "0.30000000000000004" "$T/q.csv"
"$KVB" show variants -d "$db" --format html >"$T/v.html"
check "show --format html is a page with the table" sh -c "grep -q '<table class=\"kvb\">' '$T/v.html' && grep -q '<td>new</td>' '$T/v.html'"
"$KVB" diff -d "$db" --format csv >"$T/d.csv"
check "diff csv keeps full precision (mean of 21..24 = 22.5, diff +100 * 10 / 12.5 = 80)" \
  grep -q "^bench,time (s),new,4,2,22.5,.*,80,.*" "$T/d.csv"

# The report in text formats carries the same sections as the page.
"$KVB" report -d "$db" -o "$T/r.md" --format markdown
check "markdown report has the sections" sh -c "grep -q '^## Variants' '$T/r.md' && grep -q '^## Comparison' '$T/r.md' && grep -q '^## Failures' '$T/r.md'"
check "markdown report has the verdict row" grep -q "| bench | time (s) | new | 4 | 2 |" "$T/r.md"
"$KVB" report -d "$db" -o "$T/r.json" --format json
check "json report: sections with rows and plot specs" \
  python3 -c "
import json,sys
d=json.load(open(sys.argv[1])); s=d['sections']
h=[x['heading'] for x in s if x.get('heading')]
assert h[:2] == ['Summary','Comparison'], h
m=[x for x in h if x in ('Runs','Variants','Boots: the kernel seen after each boot','Failures','Events')]
assert m == ['Runs','Variants','Boots: the kernel seen after each boot','Failures','Events'], h
assert s[1]['plot']['kind'] == 'forest' and [(r['variant'], r['diff_pct']) for r in s[1]['plot']['rows']] == [('new', 80)], s[1]
p=[x['plot'] for x in s if 'plot' in x and x['plot']['kind'] == 'dotbox']
assert p[0]['kind'] == 'dotbox' and [g['values'] for g in p[0]['groups']] == [[11,12,13,14],[21,22,23,24]], p[0]
assert p[0]['groups'][1]['boots'] == ['1','1','2','2']" "$T/r.json"
"$KVB" report -d "$db" -o "$T/r.html"
check "html report exits 0" test $? -eq 0
check "html report: no external reference" sh -c "! grep -Eqi '(src|href)=\"(https?:)?//' '$T/r.html'"
check "html report: CSP forbids every request" grep -q "default-src 'none'" "$T/r.html"
check "html report: d3 inlined" grep -q "d3js.org v5" "$T/r.html"
check "html report is mode 0644 like any file we write" test "$(stat -c %a "$T/r.html")" = "$(umask -S >/dev/null; printf '%o' $((0666 & ~$(umask))))"

# Decimation: 10 s at 10 kHz alternating 0 / 1 W, then 2 / 3 W from t = 5 s; two buckets of
# 5 s (+1 ns): 50000 samples each, so the first is min 0, max 1000, mean 500 mW and the
# second min 2000, max 3000, mean 2500 mW. Most chunks (4096 samples, 0.41 s) lie in one
# bucket and are read without their timestamps; the one across t = 5 s is decoded.
awk 'BEGIN { print "time,ch0"; for (i = 0; i < 100000; i++) printf "%.4f,%d\n", i / 10000, i % 2 + (i >= 50000 ? 2 : 0) }' >"$T/steps.csv"
"$KVB" import energy "$T/steps.csv" --job 2 -d "$db" >/dev/null
"$KVB" report -d "$db" -o - --format json --max-points 2 >"$T/steps.json"
check "power decimated into buckets: min, max and mean per bucket" \
  python3 -c "
import json,sys
d=json.load(open(sys.argv[1]))
p=[x['plot'] for x in d['sections'] if x.get('plot', {}).get('kind') == 'lines']
s=p[0]['series'][0]
assert (s['name'], s['lo'], s['hi'], s['y']) == ('ch0', [0, 2000], [1000, 3000], [500, 2500]), s
assert abs(s['t'][0] - 2.49998) < 1e-4 and abs(s['t'][1] - 7.49993) < 1e-4, s['t']" "$T/steps.json"

# Bad input.
sqlite3 "$T/empty.db" "select 1" >/dev/null
"$KVB" report -d "$T/empty.db" -o "$T/e.html" 2>"$T/e"; rc=$?
check "empty DB: exit 5 (a 0-byte file is not a results DB, and stays untouched)" test $rc -eq 5
check "empty DB: says it is not a results database" grep -q "not a kvbench results database" "$T/e"
check "empty DB: no page" test ! -e "$T/e.html"

mkdir -p "$T/local"
printf 'name: l\nconnection: {type: local}\nworkdir: %s/work\n' "$T" >"$T/local/platform.yaml"
cat >"$T/fail.yaml" <<'YAML'
config: {iterations: 1, max_retries: 0}
workloads:
  - name: hackbench
    params: {groups: 1, fds: 2, loops: 10}
variants:
  - {name: nocpu, cpus: "1023"}
YAML
# --keep-going: the preflight refuses an offline CPU; this run is to fail at run time (its jobs all fail)
"$KVB" run "$T/fail.yaml" -p "$T/local" -d "$T/f.db" --no-diff --keep-going >/dev/null 2>&1
"$KVB" report -d "$T/f.db" -o "$T/f.html" 2>"$T/e"; rc=$?
check "only failed jobs: exit 1" test $rc -eq 1
check "only failed jobs: says so" grep -q "no results, 1 of 1 jobs failed" "$T/e"
check "only failed jobs: the page shows the failure" sh -c "grep -q 'no results: every job failed' '$T/f.html' && grep -q 'CPU 1023 is not online' '$T/f.html'"

"$KVB" report -d "$db" -o "$T/no/such/dir/r.html" 2>"$T/e"; rc=$?
check "unwritable path: exit 3" test $rc -eq 3
check "unwritable path: names it" grep -q "cannot write '$T/no/such/dir/r.html'" "$T/e"

echo "previous page" >"$T/keep.html"
KVB_D3_JS=$T/missing-d3.js "$KVB" report -d "$db" -o "$T/keep.html" 2>"$T/e"; rc=$?
check "failure while writing: exit 3 naming d3" sh -c "test $rc -eq 3 && grep -q 'node-d3' '$T/e'"
check "failure while writing: the previous file is untouched" grep -qx "previous page" "$T/keep.html"
check "failure while writing: no temporary file left" test "$(ls "$T" | grep -c '^keep.html.')" = 0

# A DB written by an older kvbench (the real 0001 schema, user_version 1), read-only for us.
sqlite3 "$T/old.db" <"$SRC/results-schema/0001_initial.sql"
sqlite3 "$T/old.db" "PRAGMA user_version = 1; INSERT INTO run(id, started_ns, status) VALUES (1, 0, 'ok');"
chmod 0444 "$T/old.db"
chmod 0755 "$T"
mkdir -m 0777 "$T/out"
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
  setpriv --reuid=65534 --regid=65534 --clear-groups "$KVB" report -d "$T/old.db" -o "$T/out/o.html" 2>"$T/e"; rc=$?
else
  "$KVB" report -d "$T/old.db" -o "$T/out/o.html" 2>"$T/e"; rc=$?
fi
check "older read-only schema: exit 5" test $rc -eq 5
check "older read-only schema: says which versions" grep -q "results schema version 1 is older than this kvbench's" "$T/e"
check "older read-only schema: no page" test ! -e "$T/out/o.html"
chmod 0644 "$T/old.db"
"$KVB" report -d "$T/old.db" -o "$T/out/o2.html" 2>"$T/e"; rc=$?
check "older writable schema: migrated, then the report (no results: exit 1)" \
  sh -c "test $rc -eq 1 && test \"\$(sqlite3 '$T/old.db' 'PRAGMA user_version')\" -gt 1 && test -s '$T/out/o2.html'"
finish
