#!/usr/bin/env bash
# The deterministic board (platforms/qemu-x86_64-icount, issue 27): one boot of the generic
# Debian kernel with guest time counting instructions and the root filesystem in memory.
# The board boots, its warm-up is stored apart, its measured runs of perf bench sched pipe
# agree (measured here: within 0.02 %, one run in six 0.25 % off), the host witness says the
# host cannot change its times, and diff says what a time is there. One boot: 60-200 s.
. "$(dirname "$0")/lib.sh"
mapfile -t k < <("$SRC/scripts/get-kernels" 2>/dev/null)
generic=$(printf '%s\n' "${k[@]}" | grep -v -- '-cloud-amd64$' | head -1)
[ -n "$generic" ] || { bad "kernels from scripts/get-kernels"; finish; exit 1; }
cat >"$T/a.yaml" <<'YAML'
config: {iterations: 3}
workloads:
  - {name: sched_pipe, params: {loops: 20000}}
YAML
"$KVB" run "$T/a.yaml" -p qemu-x86_64-icount -d "$T/i.db" --rounds 1 -V "a=$generic" >"$T/out" 2>"$T/err"; rc=$?
check "run ok (rc $rc)" test "$rc" -eq 0 || cat "$T/err" >&2
# issue 39: a one-vCPU instruction-clock boot skips the local APIC timer's calibration (busy waits
# that cost 10 CPU-s of a 17 CPU-s boot under -icount): the guest's /proc/cmdline shows it
check "the boot's command line has nolapic_timer (read back from the guest)" test "$(q "$T/i.db" "select count(*) from boot where status = 'ok' and (' ' || running_cmdline || ' ') like '% nolapic_timer %'")" = "1"
check "the kernel booted is the one asked for" test "$(q "$T/i.db" "select count(*) from boot b join variant v on v.id = b.variant_id where b.status = 'ok' and b.running_release = v.expected_release")" = "1"
check "one warm-up (a board that boots per round), stored apart" test "$(q "$T/i.db" "select count(*) from job where status = 'warmup'")" = "1"
vals=$(q "$T/i.db" "select value from results where metric = 'usecs_per_op' order by iteration")
echo "usecs_per_op: $(echo $vals)" >&2
check "3 measured runs" test "$(echo "$vals" | wc -l)" = "3"
# the closest two runs agree within 0.05 %, and none is 1 % off
check "its runs agree (closest pair <= 0.05 %, all within 1 %)" python3 -c '
import sys; v = [float(x) for x in sys.argv[1].split()]
d = sorted(abs(a - b) / min(a, b) for i, a in enumerate(v) for b in v[i + 1:])
sys.exit(0 if d[0] <= 0.0005 and d[-1] <= 0.01 else 1)' "$vals"
check "host witness: the guest clock counts instructions, never disturbed" test "$(q "$T/i.db" "select count(*) from witness where kind = 'host' and subject = 'cpu pressure' and verdict = 'ok' and detail like '%counts instructions%'")" = "4"
check "and QEMU's own threads were read" test "$(q "$T/i.db" "select count(*) from witness where subject = 'board process'")" = "4"
check "diff says what a time is on this board" grep -q "guest clock counts instructions" "$T/out"
finish
