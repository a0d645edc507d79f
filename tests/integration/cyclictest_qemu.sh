#!/usr/bin/env bash
# The cyclictest workload on the QEMU board (Debian rt-tests in its rootfs, scripts/qemu-board):
# one Debian kernel, one boot, two threads; per-thread and overall metrics stored.
. "$(dirname "$0")/lib.sh"
quiet_host # about the workload and the board, not the host witness (lib.sh)
mapfile -t k < <("$SRC/scripts/get-kernels" 2>/dev/null)
kernel=$(printf '%s\n' "${k[@]}" | head -1)
[ -n "$kernel" ] || { bad "a kernel from scripts/get-kernels"; finish; exit 1; }
cat >"$T/a.yaml" <<'YAML'
workloads:
  - {name: cyclictest, params: {duration_s: 3, threads: 2, interval_us: 1000, histogram_us: 100000}}
variants: [{name: guest}]
YAML
db=$T/q.db
"$KVB" run "$T/a.yaml" -p qemu-x86_64 -d "$db" --rounds 1 --no-diff -V "guest=$kernel" >"$T/out" 2>"$T/err"; rc=$?
check "cyclictest on the qemu board (rc $rc)" test "$rc" -eq 0
[ "$rc" -eq 0 ] || tail -5 "$T/err" >&2
check "4 metrics x threads 0, 1, all" test "$(q "$db" "select count(*) from results where workload = 'cyclictest'")" = "12"
check "the guest's output was parsed (p99 of all threads > 0)" test "$(q "$db" "select value > 0 from results where metric = 'latency_p99' and json_extract(classifiers, '\$.thread') = 'all'")" = "1"
check "the run booted the given kernel" test "$(q "$db" "select count(*) from boot where status = 'ok' and running_release = (select expected_release from variant where name = 'guest')")" = "1"
finish
