#!/usr/bin/env bash
# `cpus` on a board whose taskset has no -c (older toybox: `taskset [-p] MASK [PID|CMD [ARG...]]`):
# kvbench falls back to the hex mask; with no usable taskset at all the job fails with the reason.
. "$(dirname "$0")/lib.sh"
real=$(command -v taskset)
mkdir -p "$T/old" "$T/none"
cat >"$T/old/taskset" <<SH
#!/bin/sh
# older toybox: no -c; the mask is hex
echo "\$*" >>"$T/calls"
case "\$1" in -c) echo "taskset: Unknown option c" >&2; exit 1;; esac
exec "$real" "\$@"
SH
printf '#!/bin/sh\necho "taskset: not found" >&2\nexit 127\n' >"$T/none/taskset"
chmod +x "$T/old/taskset" "$T/none/taskset"
cat >"$T/a.yaml" <<'YAML'
workloads: [{name: sched_pipe, params: {loops: 1000}}]
variants: [{name: pinned, cpus: "1"}]
YAML
PATH="$T/old:$PATH" "$KVB" run "$T/a.yaml" -p local -d "$T/old.db" --rounds 1 --no-diff >/dev/null 2>"$T/err"; rc=$?
check "old toybox taskset: run ok (rc $rc)" test "$rc" -eq 0
check "the workload ran under 'taskset 2' (mask of CPU 1)" grep -q '^2 perf bench sched pipe' "$T/calls"
PATH="$T/none:$PATH" "$KVB" run "$T/a.yaml" -p local -d "$T/none.db" --rounds 1 --no-diff >/dev/null 2>"$T/err2"; rc=$?
check "no usable taskset: run fails (rc $rc)" test "$rc" -eq 1
check "the job says why" sh -c "$(declare -f q); KVB='$KVB' q '$T/none.db' 'select error from job' | grep -q \"cannot set the affinity: .taskset -c 1.: .*; .taskset 2. (mask): \""
# a CPU the board does not have: taskset would run on the others and say nothing (sched_setaffinity
# keeps the online part of a mask), so the job fails naming it (engine/affinity.c)
last=$(tr ',' '\n' </sys/devices/system/cpu/online | tail -1 | sed 's/.*-//')
cat >"$T/b.yaml" <<YAML
workloads: [{name: sched_pipe, params: {loops: 1000}}]
variants: [{name: pinned, cpus: "0,$((last + 1))"}]
YAML
"$KVB" run "$T/b.yaml" -p local -d "$T/absent.db" --rounds 1 --no-diff --keep-going >/dev/null 2>"$T/err3"; rc=$? # past the preflight (it refuses it too)
check "a CPU that is not online: run fails (rc $rc)" test "$rc" -eq 1
check "the job names the CPU" sh -c "$(declare -f q); KVB='$KVB' q '$T/absent.db' 'select error from job' | grep -q \"CPU $((last + 1)) is not online on the board\""
finish
