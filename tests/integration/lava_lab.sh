#!/usr/bin/env bash
# kvbench through a real LAVA lab (docs/design.md#pools-and-lava): Debian's lava-server and lava-dispatcher
# 2023.01 with PostgreSQL on loopback, one worker, two devices of LAVA's qemu device type each
# with a tag of its own, and device types without hardware (hi960-hikey, juno-uboot) whose
# dictionaries LAVA validates against (scripts/lava-lab up). Checks, in order:
#  1. the definitions kvbench writes for qemu, hi960-hikey (HiKey960, fastboot) and juno-uboot
#     (Juno, TFTP/NFS + U-Boot) pass LAVA's own validation (lava-run --validate against the lab's
#     device dictionaries); the qemu-style definition is refused for hi960-hikey;
#  2. bad input fails the variant with LAVA's own reason and stores the run: LAVA unreachable,
#     a bad token, no token, an unknown device type;
#  3. Ctrl-C cancels the LAVA job (LAVA's health: Canceled), the run is interrupted;
#  4. an Infrastructure error: LAVA picking the device, the job is submitted again (infra_retries)
#     and a Job error is not; one board per device, the unit goes to another device;
#  5. kvbench SIGKILLed while its LAVA jobs are in flight: `run --resume` (no -p: the platform was
#     a path) reattaches to them, no LAVA job is left running, no job ran twice; a job that fails
#     (a knob the kernel does not have) fails its LAVA test case;
#  6. the quick-start agenda comparing the two Debian kernels (scripts/get-kernels), two rounds on
#     the two devices: every job ok, every variant on both devices, a LAVA job id and URL per boot,
#     the running kernel identified, kvbench's metrics in LAVA's own results (REST API) as measured,
#     jobs' durations from the LAVA log, a diff table of the same shape as a direct QEMU run; the
#     files went to the worker over kvbench's HTTP server; the run exports as KCIDB JSON;
#  7. `lava-lab down` stops what `up` started, PostgreSQL included.
# Slow (LAVA jobs deploy a 512 MB root filesystem and boot under TCG): label lava.
# Needs root and the packages lava-server, lava-dispatcher, postgresql (scripts/setup --lava);
# skipped (77) without.
. "$(dirname "$0")/lib.sh"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
if [ "$(id -u)" -ne 0 ] || ! command -v lava-server >/dev/null; then
  echo "skipped: needs root and lava-server (scripts/setup --lava)" >&2
  exit 77
fi
lab=$SRC/scripts/lava-lab
t0=$(date +%s)
env=$(sh "$lab" up) || { bad "lava-lab up"; finish; exit 1; }
t_up=$(( $(date +%s) - t0 ))
eval "$env"
check "lab is up ($t_up s)" test -s "$PLATFORM" -a -s "$PLATFORM_ANY"
export KVB_LAVA_TOKEN; KVB_LAVA_TOKEN=$(cat "$LAVA_TOKEN_FILE")
kernels=$(sh "$SRC/scripts/get-kernels") || { bad "get-kernels"; finish; exit 1; }
kc=$(echo "$kernels" | grep cloud | head -1)
kg=$(echo "$kernels" | grep -v cloud | head -1)
ic=$(sh "$lab" initrd "$kc")
ig=$(sh "$lab" initrd "$kg")
api() { curl -sf -H "Authorization: Token $KVB_LAVA_TOKEN" "${LAVA_URL}api/v0.2/$1"; }
field() { /usr/bin/python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
in_flight() { api "jobs/?state__in=Submitted,Scheduling,Scheduled,Running,Canceling&limit=1" | field count; }
lava_ids() { sed -n 's/.*LAVA job \([0-9]*\): .*/\1/p' "$1"; }
cat >"$T/one.yaml" <<'YAML'
config: {iterations: 1, warmup: 0}  # the checks count jobs; no warm-up job per boot
workloads:
  - {name: sched_pipe, params: {loops: 2000}}
YAML
check "each qemu device carries a tag of its own" test "$(api "devices/?tags__name=kvb-qemu-01" | field count)" = 1

# 1. LAVA's own validation of the definitions, for the lab's device dictionaries
head -c 4096 /dev/urandom >"$T/Image.gz"
head -c 1024 /dev/urandom >"$T/board.dtb"
tar czf "$T/rootfs.tar.gz" -C "$T" board.dtb
sed "s|https://files.example.org/debian-bookworm-arm64-nfs.tar.gz|$T/rootfs.tar.gz|" \
  "$SRC/platforms/lava-juno/platform.yaml" >"$T/juno.yaml"
dry() { # NAME PLATFORM -V...
  local name=$1 plat=$2; shift 2
  "$KVB" run "$T/one.yaml" -p "$plat" "$@" -d "$T/dry-$name.db" --rounds 1 --dry-run >/dev/null 2>"$T/dry-$name.err"
}
validate() { # NAME DEVICE CONTEXT DEFINITION -> LAVA's job result line
  sh "$lab" dict "$2" "$3" >"$T/$1-dev.yaml" || return
  lava-run --validate --job-id "$RANDOM" --output-dir "$T/out-$1" --device "$T/$1-dev.yaml" "$4" >"$T/$1.vlog" 2>&1
  grep '"case": "job"' "$T/$1.vlog" | tail -1
}
dry qemu "$PLATFORM" -V "k=$kc,initrd=$ic"
dry hikey lava-hikey960 -V "k=$T/Image.gz,dtb=$T/board.dtb,initrd=$ic"
dry juno "$T/juno.yaml" -V "k=$T/Image.gz,dtb=$T/board.dtb"
for t in qemu:kvb-qemu-01:'{arch: amd64}' hikey:kvb-hikey960-01:'{}' juno:kvb-juno-01:'{}'; do
  name=${t%%:*}; rest=${t#*:}; dev=${rest%%:*}; ctx=${rest#*:}
  r=$(validate "$name" "$dev" "$ctx" "$T/dry-$name.db.d/dry-run/k-r1.yaml")
  check "$name: the definition passes LAVA's validation for $dev ($r)" sh -c "echo '$r' | grep -q '\"result\": \"pass\"'"
done
r=$(validate wrong kvb-hikey960-01 '{}' "$T/dry-qemu.db.d/dry-run/k-r1.yaml")
check "a qemu-style definition for hi960-hikey is refused with LAVA's words" \
  sh -c "echo '$r' | grep -q 'None of the deployment strategies accepted your deployment parameters'"

# 2. bad input
sed "s|url: $LAVA_URL|url: http://127.0.0.1:1/|" "$PLATFORM_ANY" >"$T/unreach.yaml"
sed -e 's|device_type: qemu|device_type: nosuchtype|' -e 's|^    qemu:$|    nosuchtype:|' "$PLATFORM_ANY" >"$T/baddt.yaml"
badrun() { # NAME PLATFORM [env...]
  local name=$1 plat=$2; shift 2
  env "$@" "$KVB" run "$T/one.yaml" -p "$plat" -V "k=$kc,initrd=$ic" -d "$T/$name.db" --rounds 1 --no-diff \
    >/dev/null 2>"$T/$name.err"
}
badrun unreach "$T/unreach.yaml"; rc=$?
check "unreachable LAVA: exit 1 (rc $rc)" test "$rc" -eq 1
check "unreachable LAVA: the variant says so" sh -c "$(declare -f q); KVB='$KVB' q '$T/unreach.db' \"select error from variant\" | grep -q 'unreachable: Failed to connect to 127.0.0.1 port 1'"
badrun token "$PLATFORM_ANY" KVB_LAVA_TOKEN=bogus; rc=$?
check "bad token: exit 1 (rc $rc)" test "$rc" -eq 1
check "bad token: LAVA's words" sh -c "$(declare -f q); KVB='$KVB' q '$T/token.db' \"select error from variant\" | grep -q 'HTTP 403: Invalid token.'"
check "bad token: the token is in no file" sh -c "! grep -rq '$KVB_LAVA_TOKEN' '$T'/token.db* '$T/token.err'"
badrun notoken "$PLATFORM_ANY" -u KVB_LAVA_TOKEN; rc=$?
check "no token: exit 1 naming the variable" sh -c "test $rc -eq 1 && grep -q 'environment variable KVB_LAVA_TOKEN is not set' '$T/notoken.err'"
badrun baddt "$T/baddt.yaml"; rc=$?
check "unknown device type: exit 1 (rc $rc)" test "$rc" -eq 1
check "unknown device type: LAVA's words" sh -c "$(declare -f q); KVB='$KVB' q '$T/baddt.db' \"select error from variant\" | grep -q \"Device type 'nosuchtype' is unavailable\""
check "unknown device type: run stored as incomplete" test "$(q "$T/baddt.db" "select status from run")" = "incomplete"

# 3. Ctrl-C cancels the LAVA job
"$KVB" run "$T/one.yaml" -p "$PLATFORM_ANY" -V "k=$kc,initrd=$ic" -d "$T/c.db" --rounds 1 --no-diff >/dev/null 2>"$T/c.err" &
run=$!
id=
for i in $(seq 600); do
  id=$(lava_ids "$T/c.err" | head -1)
  [ -n "$id" ] && break
  sleep 0.2
done
kill -INT "$run"
wait "$run"; rc=$?
check "Ctrl-C: exit 7, interrupted (rc $rc)" test "$rc" -eq 7
check "Ctrl-C: LAVA job $id canceled" test "$(api "jobs/$id/" | field health)" = "Canceled"
check "Ctrl-C: run interrupted" test "$(q "$T/c.db" "select status from run")" = "interrupted"
check "Ctrl-C: the LAVA job stored, and as ended" test "$(q "$T/c.db" "select lava_job_id || ' ' || ended_how from lava_job")" = "$id Canceled"

# 4. infrastructure errors. LAVA picks the device: submitted again (infra_retries), a Job error not
bt=$(sh "$lab" broken-device) || bad "lava-lab broken-device"
sed -e "s|device_type: qemu|device_type: $bt|" -e "s|^    qemu:$|    $bt:|" -e 's|^  parallel: .*|  parallel: 1\n  infra_retries: 1|' \
  "$PLATFORM_ANY" >"$T/infra.yaml"
badrun infra "$T/infra.yaml"; rc=$?
ids=$(lava_ids "$T/infra.err")
check "infrastructure error: exit 1 (rc $rc)" test "$rc" -eq 1
check "infrastructure error: submitted again once (jobs $(echo $ids))" test "$(echo "$ids" | wc -w)" = 2
for id in $ids; do
  check "infrastructure error: LAVA job $id Incomplete on the broken device" \
    test "$(api "jobs/$id/" | field health)/$(api "jobs/$id/" | field actual_device)" = "Incomplete/kvb-broken-01"
done
check "infrastructure error: the variant fails with LAVA's reason" sh -c "$(declare -f q); KVB='$KVB' q '$T/infra.db' \"select error from variant\" | grep -q 'Infrastructure error: Connection closed'"
sed -e "s|^  rootfs: .*|  rootfs: file:///nonexistent/kvb-no-such-rootfs.ext4|" -e 's|^  parallel: .*|  parallel: 1\n  infra_retries: 1|' \
  "$PLATFORM_ANY" >"$T/joberr.yaml"
badrun joberr "$T/joberr.yaml"; rc=$?
check "job error: exit 1 (rc $rc)" test "$rc" -eq 1
check "job error: submitted once" test "$(lava_ids "$T/joberr.err" | wc -l)" = 1
check "job error: the variant fails with LAVA's reason" sh -c "$(declare -f q); KVB='$KVB' q '$T/joberr.db' \"select error from variant\" | grep -q \"Job error: Invalid job data: .*kvb-no-such-rootfs.ext4' does not exist\""
# one board per device: a broken qemu device and a good one; the unit that fails on the broken
# device (Infrastructure) goes to the other device, and every job ends ok
bq=$(sh "$lab" broken-device qemu) || bad "lava-lab broken-device qemu"
awk -v bq="$bq" '/^boards:$/ { print; print "  - {name: " bq ", connection: {device: " bq "}}"; print "  - {name: kvb-qemu-01, connection: {device: kvb-qemu-01}}"; skip = 1; next }
  skip && /^  - / { next } { skip = 0; print }' "$PLATFORM" >"$T/pinned.yaml"
"$KVB" run "$T/one.yaml" -p "$T/pinned.yaml" -V "k=$kc,initrd=$ic" -d "$T/pin.db" --rounds 2 --no-diff >/dev/null 2>"$T/pin.err"; rc=$?
sh "$lab" retire "$bq"
check "a device with an infrastructure error: the run still exits 0 (rc $rc)" test "$rc" -eq 0
check "its unit failed on $bq with LAVA's Infrastructure error and went to another device (an event)" \
  test "$(q "$T/pin.db" "select count(*) from event where message like '%goes to another board (board $bq: LAVA job % on device $bq ended Incomplete with an infrastructure error%'")" -ge 1
for id in $(lava_ids "$T/pin.err"); do
  [ "$(api "jobs/$id/" | field actual_device)" = "$bq" ] &&
    check "LAVA job $id on $bq ended Incomplete" test "$(api "jobs/$id/" | field health)" = Incomplete
done
check "every job ran, on the other device" test "$(q "$T/pin.db" "select count(*) from job j join boot b on b.variant_id=j.variant_id and b.round=j.round where j.status='ok' and b.board='kvb-qemu-01'")/$(q "$T/pin.db" "select count(*) from job")" = "$(q "$T/pin.db" "select count(*) from job")/$(q "$T/pin.db" "select count(*) from job")"

# 5. SIGKILL with LAVA jobs in flight, then --resume without -p: reattached, nothing orphaned
cat >"$T/k.yaml" <<'YAML'
config: {iterations: 1, warmup: 0}  # the checks count jobs; no warm-up job per boot
workloads:
  - {name: sched_pipe, params: {loops: 2000}}
  - {name: sched_pipe, id: noknob, params: {loops: 2000}, runtime_params: {sysfs: {/sys/kernel/kvb_no_such_knob: 1}}}
YAML
db=$T/k.db
"$KVB" run "$T/k.yaml" -p "$PLATFORM" -V "cloud=$kc,initrd=$ic" -V "generic=$kg,initrd=$ig" -d "$db" --rounds 1 --no-diff \
  >/dev/null 2>"$T/k.err" &
run=$!
for i in $(seq 900); do
  [ "$(lava_ids "$T/k.err" | wc -l)" -ge 2 ] && break
  sleep 0.2
done
kill -9 "$run"; wait "$run" 2>/dev/null
killed=$(lava_ids "$T/k.err" | sort -n | tr '\n' ' ')
check "killed with LAVA jobs $killed stored the moment they were submitted" test "$(q "$db" "select group_concat(lava_job_id, ' ') from (select lava_job_id from lava_job where ended_ns is null order by lava_job_id)") " = "$killed"
# as if the kill had come while LAVA answered the generic unit's submission: its id never stored
lost=$(q "$db" "select l.lava_job_id from lava_job l join variant v on v.id=l.variant_id where v.name='generic'")
sqlite3 "$db" "delete from lava_job where lava_job_id = $lost"
"$KVB" run --resume -d "$db" --no-diff >/dev/null 2>"$T/k2.err"; rc=$?
check "resume without -p exits 1: the knob the kernel lacks failed its job (rc $rc)" test "$rc" -eq 1
check "resume reattached to the LAVA job it knew" test "$(grep -c 'left by an earlier kvbench.*reattached' "$T/k2.err")" = 1
check "the job whose id was never stored was found by its name and cancelled" \
  sh -c "grep -q 'LAVA job $lost of .* did not live to store it: cancelling it' '$T/k2.err' && test \"\$(curl -sf -H 'Authorization: Token $KVB_LAVA_TOKEN' '${LAVA_URL}api/v0.2/jobs/$lost/' | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)[\"health\"])')\" = Canceled"
check "and that unit submitted anew, once" test "$(lava_ids "$T/k2.err" | wc -l)" = 1
check "no LAVA job left in flight" test "$(in_flight)" = 0
check "every LAVA job the run ran ended Complete" test "$(q "$db" "select count(*) from lava_job where ended_how='Complete'")" = 2
check "the sched_pipe jobs ok, once each" test "$(q "$db" "select count(*) from job where status='ok' and spec_id<>'noknob' and attempts=1")" = 2
killed="$(echo $killed | tr ' ' '\n' | grep -vx "$lost") $(lava_ids "$T/k2.err")"
for id in $killed; do
  api "jobs/$id/tests/?limit=200" >"$T/tests-$id.json"
  check "LAVA job $id: kvbench's failed job fails its LAVA test case" sh -c "/usr/bin/python3 -c \"import json; d=json.load(open('$T/tests-$id.json')); r={t['name']: t['result'] for t in d['results']}; assert [v for k, v in r.items() if k.endswith('-noknob')] == ['fail'], r\""
done

# 6. the quick-start agenda through LAVA (KVB_LAVA_ITERATIONS=N runs N iterations instead of 3)
n=${KVB_LAVA_ITERATIONS:-3}
sed "s/^  iterations: 5$/  iterations: $n/" "$SRC/agendas/quickstart.yaml" >"$T/quickstart.yaml"
t1=$(date +%s)
"$KVB" run "$T/quickstart.yaml" -p "$PLATFORM" -V "cloud=$kc,initrd=$ic" -V "generic=$kg,initrd=$ig" \
  -V "generic-1cpu=$kg,initrd=$ig" -d "$T/q.db" --rounds 2 >"$T/q.out" 2>"$T/q.err"; rc=$?
t_run=$(( $(date +%s) - t1 ))
check "quick-start through LAVA exits 0 (rc $rc, $t_run s)" test "$rc" -eq 0
check "$((6 * n)) jobs ok" test "$(q "$T/q.db" "select count(*) from job where status='ok'")" = "$((6 * n))"
check "6 boots, each a LAVA job with its page" test "$(q "$T/q.db" "select count(*) from boot where status='ok' and lava_job_id > 0 and lava_url like '${LAVA_URL}scheduler/job/%'")" = "6"
check "every variant ran on both devices" test "$(q "$T/q.db" "select group_concat(n, '/') from (select count(distinct b.board) n from boot b group by b.variant_id)")" = "2/2/2"
check "the cloud kernel ran where asked" test "$(q "$T/q.db" "select distinct b.running_release from boot b join variant v on v.id=b.variant_id where v.name='cloud'")" = "$(basename "$(dirname "$(dirname "$kc")")")"
check "generic-1cpu booted with maxcpus=1" test "$(q "$T/q.db" "select count(*) from boot b join variant v on v.id=b.variant_id where v.name='generic-1cpu' and b.running_cmdline like '%maxcpus=1%'")" = "2"
for id in $(q "$T/q.db" "select lava_job_id from boot where status='ok'"); do api "jobs/$id/" | field definition; done >"$T/defs"
check "18 files (kernel, initrd, rootfs x 6 boots) served by kvbench over HTTP" \
  test "$(grep -o 'http://127\.0\.0\.1:[0-9]*/[0-9a-f]\{32\}/[^ "]*' "$T/defs" | wc -l)" = 18
check "no file:// URL in the LAVA jobs" sh -c "! grep -q 'file://' '$T/defs'"
check "the definitions are the platform's: priority medium, public" sh -c "test \$(grep -c '^priority: medium' '$T/defs') -eq 6 && test \$(grep -c '^visibility: public' '$T/defs') -eq 6"
# kvbench's metrics in LAVA's results: each hackbench time as LAVA shows it, against the DB
q "$T/q.db" "select b.lava_job_id, printf('%04d', j.seq) || '-' || j.spec_id || '.' || r.metric, r.value from results r join job j on j.id=r.job_id join boot b on b.variant_id=j.variant_id and b.round=j.round where r.metric in ('time', 'ops_per_sec')" | tr ',' ' ' >"$T/want"
bad_m=0
while read -r id name value; do
  api "jobs/$id/tests/?limit=500" >"$T/t.json" 2>/dev/null
  /usr/bin/python3 -c "import json,sys; d=json.load(open('$T/t.json')); m=[float(t['measurement']) for t in d['results'] if t['name'] == '$name' and t['result'] == 'pass']; sys.exit(0 if m and abs(m[0] - $value) <= 1e-9 * max(1, abs($value)) else 1)" || bad_m=$((bad_m + 1))
done <"$T/want"
check "kvbench's $(wc -l <"$T/want") time/ops_per_sec values are LAVA test cases with those measurements ($bad_m differ)" test "$bad_m" -eq 0
check "a hackbench job's duration is its time on the board (not 0)" test "$(q "$T/q.db" "select count(*) from jobs where workload='hackbench' and status='ok' and duration_s > 1")" = "$((3 * n))"
# warm-up (one job per workload and boot, never compared): a LAVA pass with no measurement
q "$T/q.db" "select b.lava_job_id, printf('%04d', j.seq) || '-' || j.spec_id from job j join boot b on b.variant_id=j.variant_id and b.round=j.round where j.status='warmup'" | tr ',' ' ' >"$T/warm"
bad_w=0
while read -r id name; do
  api "jobs/$id/tests/?limit=500" >"$T/t.json" 2>/dev/null
  /usr/bin/python3 -c "import json,sys; d=json.load(open('$T/t.json')); r=[t['result'] for t in d['results'] if t['name'] == '$name']; m=[t for t in d['results'] if t['name'].startswith('$name.')]; sys.exit(0 if r == ['pass'] and not m else 1)" || bad_w=$((bad_w + 1))
done <"$T/warm"
check "12 warm-up jobs (2 workloads x 6 boots), each a LAVA pass without measurements ($bad_w differ)" sh -c "test $(wc -l <"$T/warm") -eq 12 && test $bad_w -eq 0"
check "LAVA logs kept as artifacts" test "$(q "$T/q.db" "select count(*) from artifact where kind='lava-log'")" -ge 6
check "table: one row per variant and metric, as a direct QEMU run" test "$(grep -c '^| \(hackbench\|sched_pipe\) ' "$T/q.out")" = "12"
check "table: two boots per variant" test "$(grep '^| \(hackbench\|sched_pipe\) ' "$T/q.out" | awk -F'|' '{gsub(/ /, "", $6); print $6}' | sort -u)" = "2"
"$KVB" export kcidb -d "$T/q.db" >"$T/q.kcidb.json"; rc=$?
check "the run exports as KCIDB JSON (rc $rc)" sh -c "test $rc -eq 0 && /usr/bin/python3 -c \"import json; d=json.load(open('$T/q.kcidb.json')); assert len(d['builds']) == 3\""

# 7. the lab goes down, PostgreSQL with it when up started it
pg_started=0; [ -s "$(dirname "$LAVA_TOKEN_FILE")/pg-started" ] && pg_started=1
sh "$lab" down
check "lava-lab down: LAVA's web service stopped" sh -c "! curl -sf -o /dev/null '${LAVA_URL}api/v0.2/'"
if [ "$pg_started" = 1 ]; then
  check "lava-lab down stops the PostgreSQL that up started" sh -c "! pg_lsclusters -h | awk '{print \$4}' | grep -qx online"
fi
echo "lab up: $t_up s; quick-start through LAVA: $t_run s; whole test: $(( $(date +%s) - t0 )) s" >&2
[ "$fail" -eq 0 ] || { for f in unreach token baddt c infra joberr pin k k2 q; do echo "--- $f.err:" >&2; tail -20 "$T/$f.err" >&2; done; }
finish
