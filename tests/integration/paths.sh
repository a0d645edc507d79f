#!/usr/bin/env bash
# Relative paths on the command line: `-p some/dir/platform.yaml` with a command flasher finds
# its hook, and the hook gets absolute KVB_PLATFORM_DIR and KVB_ARTIFACT_DIR.
. "$(dirname "$0")/lib.sh"
KVB=$(cd "$(dirname "$KVB")" && pwd)/$(basename "$KVB")
mkdir -p "$T/work/boards/mine" "$T/work/out"
cat >"$T/work/boards/mine/platform.yaml" <<'YAML'
name: mine
connection: {type: local}
flash: {method: command, command: hook}
YAML
cat >"$T/work/boards/mine/hook" <<'HOOK'
#!/bin/sh
echo "$KVB_PLATFORM_DIR" >>"$KVB_PLATFORM_DIR/seen"
echo "$KVB_ARTIFACT_DIR" >>"$KVB_PLATFORM_DIR/seen"
HOOK
chmod +x "$T/work/boards/mine/hook"
cat >"$T/work/a.yaml" <<'YAML'
workloads: [{name: sched_pipe, params: {loops: 1000}}]
variants: [{name: a}]
YAML
(cd "$T/work" && "$KVB" run a.yaml -p boards/mine/platform.yaml -d out/r.db --rounds 1 --no-diff >out.txt 2>err.txt); rc=$?
check "run with a relative platform path and a command hook (rc $rc)" test "$rc" -eq 0
check "the hook ran" test -s "$T/work/boards/mine/seen"
check "KVB_PLATFORM_DIR is absolute" test "$(sed -n 1p "$T/work/boards/mine/seen")" = "$(cd "$T/work/boards/mine" && pwd -P)"
check "KVB_ARTIFACT_DIR is absolute and exists" sh -c "d=\$(sed -n 2p '$T/work/boards/mine/seen'); case \$d in /*) test -d \"\$d\";; *) false;; esac"
check "stored artifact paths are absolute" test "$(q "$T/work/out/r.db" "select count(*) from artifact where path not like '/%'")" = 0
[ "$fail" -eq 0 ] || cat "$T/work/err.txt" >&2
finish
