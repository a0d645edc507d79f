#!/usr/bin/env bash
# kvbench through a real LAVA lab (DESIGN.md §13): Debian's lava-server and lava-dispatcher
# 2023.01 with PostgreSQL on loopback, one worker, two devices of LAVA's qemu device type
# (scripts/lava-lab up). Checks, in order:
#  1. bad input fails the variant with LAVA's own reason and stores the run: LAVA
#     unreachable, a bad token, no token, an unknown device type;
#  2. Ctrl-C cancels the LAVA job (LAVA's health: Canceled), the run is interrupted;
#     an Infrastructure error (a device whose QEMU cannot start) is submitted again, a Job
#     error (a root filesystem that does not exist) is not;
#  3. the quick-start agenda comparing the two Debian kernels (scripts/get-kernels), two
#     rounds: every job ok, a LAVA job id and URL per boot, the running kernel identified,
#     and a diff table of the same shape as a direct QEMU run (one row per variant and
#     metric, two boots per variant); the kernels, initrds and root filesystem went to the
#     worker over HTTP from kvbench's own server, not as file:// paths.
# Slow (a LAVA job deploys a 512 MB root filesystem and boots under TCG): label lava.
# Needs root and the packages lava-server, lava-dispatcher, postgresql; skipped (77) without.
. "$(dirname "$0")/lib.sh"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
if [ "$(id -u)" -ne 0 ] || ! command -v lava-server >/dev/null; then
  echo "skipped: needs root and lava-server (scripts/setup)" >&2
  exit 77
fi
t0=$(date +%s)
env=$(sh "$SRC/scripts/lava-lab" up) || { bad "lava-lab up"; finish; exit 1; }
t_up=$(( $(date +%s) - t0 ))
eval "$env"
check "lab is up ($t_up s)" test -s "$PLATFORM"
export KVB_LAVA_TOKEN; KVB_LAVA_TOKEN=$(cat "$LAVA_TOKEN_FILE")
kernels=$(sh "$SRC/scripts/get-kernels") || { bad "get-kernels"; finish; exit 1; }
kc=$(echo "$kernels" | grep cloud | head -1)
kg=$(echo "$kernels" | grep -v cloud | head -1)
ic=$(sh "$SRC/scripts/lava-lab" initrd "$kc")
ig=$(sh "$SRC/scripts/lava-lab" initrd "$kg")
api() { curl -sf -H "Authorization: Token $KVB_LAVA_TOKEN" "${LAVA_URL}api/v0.2/$1"; }
field() { python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }

# 1. bad input
cat >"$T/one.yaml" <<'YAML'
config: {iterations: 1}
workloads:
  - {name: sched_pipe, params: {loops: 2000}}
YAML
sed "s|url: $LAVA_URL|url: http://127.0.0.1:1/|" "$PLATFORM" >"$T/unreach.yaml"
sed 's|device_type: qemu|device_type: nosuchtype|' "$PLATFORM" >"$T/baddt.yaml"
badrun() { # NAME PLATFORM [env...]
  local name=$1 plat=$2; shift 2
  env "$@" "$KVB" run "$T/one.yaml" -p "$plat" -V "k=$kc,initrd=$ic" -d "$T/$name.db" --rounds 1 --no-diff \
    >/dev/null 2>"$T/$name.err"
}
badrun unreach "$T/unreach.yaml"; rc=$?
check "unreachable LAVA: exit 1 (rc $rc)" test "$rc" -eq 1
check "unreachable LAVA: the variant says so" sh -c "$(declare -f q); KVB='$KVB' q '$T/unreach.db' \"select error from variant\" | grep -q 'unreachable: Failed to connect to 127.0.0.1 port 1'"
badrun token "$PLATFORM" KVB_LAVA_TOKEN=bogus; rc=$?
check "bad token: exit 1 (rc $rc)" test "$rc" -eq 1
check "bad token: LAVA's words" sh -c "$(declare -f q); KVB='$KVB' q '$T/token.db' \"select error from variant\" | grep -q 'HTTP 403: Invalid token.'"
check "bad token: the token is in no file" sh -c "! grep -rq '$KVB_LAVA_TOKEN' '$T'/token.db* '$T/token.err'"
badrun notoken "$PLATFORM" -u KVB_LAVA_TOKEN; rc=$?
check "no token: exit 1 naming the variable" sh -c "test $rc -eq 1 && grep -q 'environment variable KVB_LAVA_TOKEN is not set' '$T/notoken.err'"
badrun baddt "$T/baddt.yaml"; rc=$?
check "unknown device type: exit 1 (rc $rc)" test "$rc" -eq 1
check "unknown device type: LAVA's words" sh -c "$(declare -f q); KVB='$KVB' q '$T/baddt.db' \"select error from variant\" | grep -q \"Device type 'nosuchtype' is unavailable\""
check "unknown device type: run stored as incomplete" test "$(q "$T/baddt.db" "select status from run")" = "incomplete"

# 2. Ctrl-C cancels the LAVA job
"$KVB" run "$T/one.yaml" -p "$PLATFORM" -V "k=$kc,initrd=$ic" -d "$T/c.db" --rounds 1 --no-diff >/dev/null 2>"$T/c.err" &
run=$!
id=
for i in $(seq 600); do
  id=$(sed -n 's/.*LAVA job \([0-9]*\): .*/\1/p' "$T/c.err" | head -1)
  [ -n "$id" ] && break
  sleep 0.2
done
kill -INT "$run"
wait "$run"; rc=$?
check "Ctrl-C: exit 1 (rc $rc)" test "$rc" -eq 1
check "Ctrl-C: LAVA job $id canceled" test "$(api "jobs/$id/" | field health)" = "Canceled"
check "Ctrl-C: run interrupted" test "$(q "$T/c.db" "select status from run")" = "interrupted"

# 2b. an infrastructure error is submitted again (infra_retries), a job error is not
bt=$(sh "$SRC/scripts/lava-lab" broken-device) || bad "lava-lab broken-device"
sed -e "s|device_type: qemu|device_type: $bt|" -e 's|^  parallel: .*|  parallel: 1\n  infra_retries: 1|' \
  "$PLATFORM" >"$T/infra.yaml"
badrun infra "$T/infra.yaml"; rc=$?
ids=$(sed -n 's/.*LAVA job \([0-9]*\): .*/\1/p' "$T/infra.err")
check "infrastructure error: exit 1 (rc $rc)" test "$rc" -eq 1
check "infrastructure error: submitted again once (jobs $(echo $ids))" test "$(echo "$ids" | wc -w)" = 2
for id in $ids; do
  check "infrastructure error: LAVA job $id Incomplete on the broken device" \
    test "$(api "jobs/$id/" | field health)/$(api "jobs/$id/" | field actual_device)" = "Incomplete/kvb-broken-01"
done
check "infrastructure error: the variant fails with LAVA's reason" sh -c "$(declare -f q); KVB='$KVB' q '$T/infra.db' \"select error from variant\" | grep -q 'Infrastructure error: Connection closed'"
sed -e "s|^  rootfs: .*|  rootfs: file:///nonexistent/kvb-no-such-rootfs.ext4|" -e 's|^  parallel: .*|  parallel: 1\n  infra_retries: 1|' \
  "$PLATFORM" >"$T/joberr.yaml"
badrun joberr "$T/joberr.yaml"; rc=$?
check "job error: exit 1 (rc $rc)" test "$rc" -eq 1
check "job error: submitted once" test "$(grep -c 'LAVA job [0-9]*: ' "$T/joberr.err")" = 1
check "job error: the variant fails with LAVA's reason" sh -c "$(declare -f q); KVB='$KVB' q '$T/joberr.db' \"select error from variant\" | grep -q \"Job error: Invalid job data: .*kvb-no-such-rootfs.ext4' does not exist\""

# 3. the quick-start agenda through LAVA (KVB_LAVA_ITERATIONS=N runs N iterations instead of
# its 5, for loaded machines where a TCG guest gets a small share of a core)
n=${KVB_LAVA_ITERATIONS:-5}
sed "s/^  iterations: 5$/  iterations: $n/" "$SRC/agendas/quickstart.yaml" >"$T/quickstart.yaml"
t1=$(date +%s)
"$KVB" run "$T/quickstart.yaml" -p "$PLATFORM" -V "cloud=$kc,initrd=$ic" -V "generic=$kg,initrd=$ig" \
  -V "generic-1cpu=$kg,initrd=$ig" -d "$T/q.db" --rounds 2 >"$T/q.out" 2>"$T/q.err"; rc=$?
t_run=$(( $(date +%s) - t1 ))
check "quick-start through LAVA exits 0 (rc $rc, $t_run s)" test "$rc" -eq 0
check "$((6 * n)) jobs ok" test "$(q "$T/q.db" "select count(*) from job where status='ok'")" = "$((6 * n))"
check "6 boots, each a LAVA job with its page" test "$(q "$T/q.db" "select count(*) from boot where status='ok' and lava_job_id > 0 and lava_url like '${LAVA_URL}scheduler/job/%'")" = "6"
check "the cloud kernel ran where asked" test "$(q "$T/q.db" "select distinct b.running_release from boot b join variant v on v.id=b.variant_id where v.name='cloud'")" = "$(basename "$(dirname "$(dirname "$kc")")")"
check "generic-1cpu booted with maxcpus=1" test "$(q "$T/q.db" "select count(*) from boot b join variant v on v.id=b.variant_id where v.name='generic-1cpu' and b.running_cmdline like '%maxcpus=1%'")" = "2"
for id in $(q "$T/q.db" "select lava_job_id from boot where status='ok'"); do api "jobs/$id/" | field definition; done >"$T/defs"
check "18 files (kernel, initrd, rootfs x 6 boots) served by kvbench over HTTP" \
  test "$(grep -o 'http://127\.0\.0\.1:[0-9]*/[0-9a-f]\{32\}/[^ "]*' "$T/defs" | wc -l)" = 18
check "no file:// URL in the LAVA jobs" sh -c "! grep -q 'file://' '$T/defs'"
check "LAVA logs kept as artifacts" test "$(q "$T/q.db" "select count(*) from artifact where kind='lava-log'")" -ge 6
check "table: one row per variant and metric, as a direct QEMU run" test "$(grep -c '^| \(hackbench\|sched_pipe\) ' "$T/q.out")" = "12"
check "table: two boots per variant" test "$(grep '^| \(hackbench\|sched_pipe\) ' "$T/q.out" | awk -F'|' '{gsub(/ /, "", $6); print $6}' | sort -u)" = "2"
echo "lab up: $t_up s; quick-start through LAVA: $t_run s" >&2
[ "$fail" -eq 0 ] || { for f in unreach token baddt c infra joberr q; do echo "--- $f.err:" >&2; tail -20 "$T/$f.err" >&2; done; }
finish
