#!/usr/bin/env bash
# `kvbench export kcidb` (issue 28 item 6): a run as a KCIDB report that passes KCIDB's own
# published schema (kernelci/kcidb-io v5.3, tests/fixtures/field/kcidb) with Debian's
# python3-jsonschema, and says what the DB says: a checkout and a build per variant, a test per
# job (PASS, ERROR for a failed job with its reason), a DONE test per metric with its value and
# unit. The validator itself refuses a report that breaks the schema.
. "$(dirname "$0")/lib.sh"
py=/usr/bin/python3 # Debian's, with python3-jsonschema (scripts/setup)
schema=$SRC/tests/fixtures/field/kcidb/kcidb-io.schema.v5.3.json
if ! "$py" -c 'import jsonschema' 2>/dev/null; then
  echo "skipped: needs python3-jsonschema (scripts/setup)" >&2
  exit 77
fi
validate() { # FILE -> "ok" or the first errors
  "$py" - "$schema" "$1" <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
v = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
errs = sorted(v.iter_errors(doc), key=lambda e: list(e.path))
print("ok" if not errs else "\n".join("%s at %s" % (e.message[:200], list(e.path)) for e in errs[:5]))
PY
}
cat >"$T/a.yaml" <<'YAML'
config: {iterations: 2}
workloads:
  - {name: sched_pipe, params: {loops: 2000}}
  - {name: hackbench, params: {groups: 1, fds: 2, loops: 10}}
  - {name: sched_pipe, id: noknob, params: {loops: 2000}, runtime_params: {sysfs: {/sys/kernel/kvb_no_such_knob: 1}}}
variants: [{name: one, cpus: "0"}, {name: two, cpus: "0-1"}]
YAML
db=$T/r.db
"$KVB" run "$T/a.yaml" -p local -d "$db" --no-diff --keep-going >/dev/null 2>&1
"$KVB" export kcidb -d "$db" >"$T/k.json" 2>"$T/err"; rc=$?
check "export kcidb exits 0 (rc $rc)" test "$rc" -eq 0
r=$(validate "$T/k.json")
check "the report passes KCIDB's schema v5.3 ($r)" test "$r" = ok
field() { "$py" -c "import json,sys; d=json.load(open('$T/k.json')); print($1)"; }
check "a checkout and a build per variant" test "$(field "len(d['checkouts']), len(d['builds'])")" = "2 2"
metrics=$(q "$db" "select count(*) from metric")
check "a test per job and per metric ($metrics metrics)" test "$(field "len(d['tests'])")" = "$((12 + metrics))"
check "schema version 5.3" test "$(field "d['version']['major'], d['version']['minor']")" = "5 3"
v=$(q "$db" "select value from results where variant='one' and workload='hackbench' and metric='time' and iteration=2")
check "hackbench's time is the DB's ($v s)" test "$(field "[t['number'] for t in d['tests'] if t['path'] == 'kvbench.hackbench.time' and t['misc']['kvbench_job'] == $(q "$db" "select j.id from job j join variant v on v.id=j.variant_id where v.name='one' and j.workload='hackbench' and j.iteration=2")][0]")" = "{'value': $v, 'unit': 's'}"
check "a failed job is ERROR with its reason" test "$(field "sorted(set((t['status'], 'kvb_no_such_knob' in t.get('comment', '')) for t in d['tests'] if t['misc'].get('spec') == 'noknob'))")" = "[('ERROR', True)]"
check "the jobs that ran are PASS" test "$(field "sum(1 for t in d['tests'] if t['status'] == 'PASS')")" = "8"
check "every id unique" test "$(field "len(set(t['id'] for t in d['tests'])) == len(d['tests'])")" = "True"
check "tests name their build, builds their checkout" test "$(field "all(t['build_id'] in {b['id'] for b in d['builds']} for t in d['tests']) and all(b['checkout_id'] in {c['id'] for c in d['checkouts']} for b in d['builds'])")" = "True"
# the validator can fail: a status KCIDB does not know
"$py" -c "import json; d=json.load(open('$T/k.json')); d['tests'][1]['status'] = 'MEASURED'; json.dump(d, open('$T/bad.json', 'w'))"
validate "$T/bad.json" >"$T/bad.out"
check "a report with a status KCIDB does not know is refused" grep -q "'MEASURED' is not one of" "$T/bad.out"
"$KVB" export kcidb -d "$db" --origin 'Bad-Origin' >/dev/null 2>"$T/err2"; rc=$?
check "an origin KCIDB would refuse is bad input (rc $rc)" sh -c "test $rc -eq 3 && grep -q 'KCIDB origins are' '$T/err2'"
"$KVB" export kcidb -d "$db" --run 7 >/dev/null 2>"$T/err3"; rc=$?
check "no such run (rc $rc)" sh -c "test $rc -eq 3 && grep -q 'no run 7' '$T/err3'"
[ "$fail" -eq 0 ] || { cat "$T/err" >&2; head -c 2000 "$T/k.json" >&2; }
finish
