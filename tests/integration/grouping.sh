# One grouping rule and one meaning of "boot" (issue 26 item 5), on a real local run: two
# variants differing in a knob (cpus), --rounds 2 on a board that never reboots (flash none,
# so both rounds ran in one boot), hackbench and rt-app jobs measured by a simulated meter
# (tests/sim/probe_sim as a csv-command instrument) and the util instrument.
#  - the report's energy and utilisation plots are the diff's cells: one per workload, spec
#    classifiers and channel (before: one energy plot per channel pooling rt-app and hackbench);
#  - energy rows (the energy view) carry the job's classifiers and the boot diff counts;
#  - the comparison view groups as diff does (a variant's knob is compared, not grouped by);
#  - boot is 1 for every job in show, diff, the energy view and the report (before: the report's
#    boots table and the energy plots said boot 1 and 2).
. "$(dirname "$0")/lib.sh"
SIM=${KVB_BUILD_DIR:-build}/tests/sim/probe_sim
mkdir -p "$T/p"
cat >"$T/p/platform.yaml" <<YAML
name: meter
connection: {type: local}
workdir: $T/work
instruments:
  meter: {type: csv-command, command: ["$SIM", csv, --power, "const:1.5", --channels, "1", --done, "$T/done"],
          ready_timeout_ms: 20000}
YAML
cat >"$T/a.yaml" <<YAML
config: {iterations: 2, instruments: [util]}
variants:
  - {name: one, cpus: "0"}
  - {name: two, cpus: "0-1"}
workloads:
  - name: hackbench
    params: {groups: 1, fds: 5, loops: 2000}  # >= 100 ms: every CPU has ticks in its window (util per CPU)
  - name: rt-app
    params:
      duration_s: 1
      calibration: 200
      tasks: [{name: t, period_us: 20000, run_us: 1000}]
YAML
db=$T/g.db
"$KVB" run "$T/a.yaml" -p "$T/p" -d "$db" --rounds 2 >"$T/out" 2>"$T/err"; rc=$?
check "run exits 0" test "$rc" -eq 0
[ "$rc" -eq 0 ] || tail -20 "$T/err" >&2
check "8 jobs ok" test "$(q "$db" "select count(*) from job where status = 'ok'")" = "8"

# energy rows carry the spec's classifiers and the boot of the statistics
check "energy view: classifiers of the job (rt-app's use case, hackbench's groups)" \
  test "$(q "$db" "select count(*) from energy where (workload = 'rt-app' and json_extract(classifiers, '\$.tasks') is not null) or (workload = 'hackbench' and json_extract(classifiers, '\$.groups') = '1')")" = "8"
check "energy view: boot 1 for both rounds (one boot), round kept" test "$(q "$db" "select count(distinct boot) || ' ' || min(boot) || ' ' || count(distinct round) from energy")" = "1 1 2"

# the report: energy and util plots follow the diff's cells; boots as diff counts them
"$KVB" report -d "$db" --format json -o "$T/r.json" 2>"$T/rerr"; rc=$?
check "report --format json exits 0 (rc $rc)" test "$rc" -eq 0
python3 - "$T/r.json" >"$T/plots" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
def walk(x):
    if isinstance(x, dict):
        if x.get("kind") in ("dotbox", "lines", "stack") and "title" in x:
            yield x
        for v in x.values():
            yield from walk(v)
    elif isinstance(x, list):
        for v in x:
            yield from walk(v)
for p in walk(doc):
    t = p["title"]
    if t.startswith("job "):
        print("POWER", t)
    elif "energy per job" in t or ": util_mean per CPU" in t:
        n = sum(len(g["values"]) for g in p.get("groups", []))
        boots = sorted({b for g in p.get("groups", []) for b in g.get("boots", [])})
        print("PLOT", t, "|", n, "|", ",".join(boots))
PY
check "one energy plot per workload (and channel)" test "$(grep -c '^PLOT .*energy per job' "$T/plots")" = "2"
check "no energy plot pools rt-app and hackbench: 4 jobs each (2 variants x 2 iterations)" \
  test "$(grep '^PLOT .*energy per job' "$T/plots" | cut -d'|' -f2 | tr -d ' ' | sort -u)" = "4"
check "util plots per workload, each its workload's jobs only (4 jobs x 2 CPUs)" \
  test "$(grep '^PLOT .*util_mean per CPU' "$T/plots" | cut -d'|' -f2 | tr -d ' ' | sort -u)" = "8"
check "every energy and util dot is boot 1" test "$(grep '^PLOT' "$T/plots" | cut -d'|' -f3 | tr -d ' ' | sort -u)" = "1"
check "power-over-time titles say boot 1 only, and name the spec" \
  sh -c "grep '^POWER' '$T/plots' | grep -q 'rt-app iteration' && ! grep '^POWER' '$T/plots' | grep -q 'boot 2'"
python3 - "$T/r.json" >"$T/boots" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
def find(x):
    if isinstance(x, dict):
        if x.get("id") == "boots" or x.get("heading", "").startswith("Boots"):
            yield x
        for v in x.values():
            yield from find(v)
    elif isinstance(x, list):
        for v in x:
            yield from find(v)
for s in find(doc):
    print(json.dumps(s))
PY
check "report's boots table: round 1 and 2, both boot 1" sh -c "grep -q '\"round\": *2' '$T/boots' && ! grep -q '\"boot\": *2' '$T/boots'"
check "show jobs: boot 1 for every job" test "$("$KVB" show jobs -d "$db" --format csv | tail -n +2 | cut -d, -f4 | sort -u)" = "1"

# the comparison view groups as diff does: variant two's cpus knob is compared, not grouped by
check "comparison: every variant-two cell has its baseline" \
  test "$(q "$db" "select count(*) || ' ' || count(baseline) from comparison where variant = 'two'")" = "$(q "$db" "select count(*) || ' ' || count(*) from comparison where variant = 'two'")"
check "comparison: as many cells per variant as diff has groups" \
  test "$(q "$db" "select count(*) from comparison where variant = 'one'")" = "$(q "$db" "select count(*) from comparison where variant = 'two'")"
check "comparison: hackbench time is one cell per variant" \
  test "$(q "$db" "select count(*) from comparison where workload = 'hackbench' and metric = 'time'")" = "2"
check "comparison: rt-app's pload_ns is not a group key" test "$(q "$db" "select count(*) from comparison where grp like '%pload_ns%'")" = "0"
finish
