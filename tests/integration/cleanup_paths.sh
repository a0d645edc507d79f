# The smaller items of issue 26 (item 9), each seen in the field:
#  - a run leaves nothing in the board's workdir (there were hundreds of empty run-N-PID
#    directories in /tmp/kvbench: each job's directory was removed, the run's was not);
#  - `platform new` writes where `platform check` finds it from any directory, and says where
#    it wrote and how to name it; a --dir off the search path is named by its path;
#  - a stdout write error is its own exit status (6), not 2 (usage).
. "$(dirname "$0")/lib.sh"
export XDG_CONFIG_HOME=$T/cfg
KVB=$(cd "$(dirname "$KVB")" && pwd)/$(basename "$KVB") # the test changes directory
unset KVB_PLATFORM_PATH
mkdir -p "$T/p" "$T/a" "$T/b" "$T/work"
printf 'name: wd\nconnection: {type: local}\nworkdir: %s/work\n' "$T" >"$T/p/platform.yaml"
printf 'config: {iterations: 2}\nworkloads:\n  - name: hackbench\n    params: {groups: 1, fds: 2, loops: 10}\n' >"$T/a.yaml"
"$KVB" run "$T/a.yaml" -p "$T/p" -d "$T/r.db" >/dev/null 2>&1; rc=$?
check "a local run exits 0 (rc $rc)" test "$rc" -eq 0
check "it leaves nothing in the workdir" test "$(find "$T/work" -mindepth 1 | wc -l)" = 0
find "$T/work" -mindepth 1 >&2

(cd "$T/a" && "$KVB" platform new myboard --from local >"$T/n1" 2>&1); rc=$?
check "platform new exits 0 (rc $rc)" test "$rc" -eq 0
check "it says where it wrote" grep -qx "wrote $T/cfg/kvbench/platforms/myboard/platform.yaml" "$T/n1"
check "and how to name it" grep -q "^name it \`-p myboard\` from any directory" "$T/n1"
check "nothing written under the current directory" test ! -e "$T/a/platforms"
(cd "$T/b" && "$KVB" platform check myboard >"$T/c1" 2>&1); rc=$?
check "platform check from another directory finds it (rc $rc)" sh -c "test $rc -eq 0 && grep -q '^$T/cfg/kvbench/platforms/myboard/platform.yaml: valid' '$T/c1'"
(cd "$T/a" && "$KVB" platform new other --from local --dir mine >"$T/n2" 2>&1); rc=$?
check "platform new --dir off the search path says to name it by its path (rc $rc)" grep -q "^$T/a/mine is not on the platform search path: name it by its path, \`-p $T/a/mine/other\`" "$T/n2"
(cd "$T/b" && "$KVB" platform check "$T/a/mine/other" >/dev/null 2>&1); rc=$?
check "platform check takes that path (rc $rc)" test "$rc" -eq 0
(cd "$T/b" && "$KVB" platform check nosuchboard >/dev/null 2>"$T/c3"); rc=$?
check "a name found nowhere lists where kvbench looked, the user's directory too (rc $rc)" sh -c "test $rc -eq 3 && grep -q '$T/cfg/kvbench/platforms' '$T/c3'"

if [ -w /dev/full ]; then
  "$KVB" show runs -d "$T/r.db" >/dev/full 2>"$T/full"; rc=$?
  check "a stdout write error exits 6, not 2 (rc $rc)" test "$rc" -eq 6
  check "and says so" grep -q "error: writing to stdout: No space left on device" "$T/full"
  "$KVB" show runs -d "$T/r.db" | head -c 1 >/dev/null; rc=${PIPESTATUS[0]}
  check "a reader that went away is not an error (rc $rc)" test "$rc" -eq 0
fi
finish
