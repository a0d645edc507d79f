#!/usr/bin/env bash
# Two real Debian kernels on the QEMU board: identity of each boot matches its image,
# both give metrics, a kernel that panics fails its variant while the others complete,
# and an A/A pair over 3 boots is not called significant.
. "$(dirname "$0")/lib.sh"
quiet_host # about the workload and the board, not the host witness (lib.sh)
mapfile -t k < <("$SRC/scripts/get-kernels" 2>/dev/null)
cloud=$(printf '%s\n' "${k[@]}" | grep -- '-cloud-amd64$')
generic=$(printf '%s\n' "${k[@]}" | grep -v -- '-cloud-amd64$' | head -1)
[ -n "$cloud" ] && [ -n "$generic" ] || { bad "kernels from scripts/get-kernels"; finish; exit 1; }
cat >"$T/ab.yaml" <<'YAML'
config: {iterations: 2}
workloads:
  - {name: sched_pipe, params: {loops: 5000}}
  - {name: hackbench, params: {groups: 2, loops: 50}}
variants:
  - {name: cloud}
  - {name: panics, cmdline: root=/dev/nonexistent}
  - {name: generic, cmdline: kvbtest=1}
YAML
db=$T/ab.db
"$KVB" run "$T/ab.yaml" -p qemu-x86_64 -d "$db" --rounds 1 \
  -V "cloud=$cloud" -V "panics=$generic" -V "generic=$generic" >"$T/out" 2>"$T/err"; rc=$?
check "run with a panicking variant exits 1 (rc $rc)" test "$rc" -eq 1
for v in cloud generic; do
  check "$v: identity matches its image" test "$(q "$db" "select count(*) from boot b join variant v on v.id=b.variant_id where v.name='$v' and b.status='ok' and b.running_release=v.expected_release and b.running_version=v.expected_version")" = "1"
  check "$v: 4 jobs ok" test "$(q "$db" "select count(*) from job j join variant v on v.id=j.variant_id where v.name='$v' and j.status='ok'")" = "4"
done
check "cloud and generic run different kernels" test "$(q "$db" "select count(distinct running_release) from boot where status='ok'")" = "2"
check "generic's cmdline reached /proc/cmdline" test "$(q "$db" "select count(*) from boot where running_cmdline like '%kvbtest=1%'")" = "1"
check "panicking variant failed" test "$(q "$db" "select status from variant where name='panics'")" = "failed"
check "its reason quotes the panic" sh -c "$(declare -f q); KVB='$KVB' q '$db' \"select error from variant where name='panics'\" | grep -qi 'panic'"
check "its console log is kept as an artifact" test "$(q "$db" "select count(*) from artifact where kind='console' and path like '%panics%' and bytes > 0")" = "1"
check "diff prints both booted kernels" sh -c "grep -q '| cloud ' '$T/out' && grep -q '| generic ' '$T/out'"

# A/A: the same kernel twice, 3 boots each: the boot-aware verdict must not flag it.
cat >"$T/aa.yaml" <<'YAML'
config: {iterations: 6}
workloads:
  - {name: sched_pipe, params: {loops: 5000}}
variants: [{name: a}, {name: b}]
YAML
"$KVB" run "$T/aa.yaml" -p qemu-x86_64 -d "$T/aa.db" --rounds 3 -V "a=$cloud" -V "b=$cloud" >"$T/aa" 2>"$T/aaerr"; rc=$?
check "A/A run ok (rc $rc)" test "$rc" -eq 0
check "6 boots recorded" test "$(q "$T/aa.db" "select count(*) from boot where status='ok'")" = "6"
check "diff shows 3 boots per variant" test "$(grep -c '| sched_pipe .*|  *6 |  *3 |' "$T/aa")" = "6"
check "A/A not marked significant" sh -c "! grep -q '%\*' '$T/aa'"
cat "$T/aa" >&2
finish
