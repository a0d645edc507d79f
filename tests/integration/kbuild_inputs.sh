#!/usr/bin/env bash
# Git variants without compiling a kernel (tests/kbuild/fake: a vendor-style build
# command writes an image with the banner a build of the commit would carry): the
# build, its cache, the variant_build rows and build-log artifacts, the identity check
# refusing a board that does not run the built commit, and every bad input of
# docs/design.md#kernels-from-git with its exit code. Nothing may be left in the repository.
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/kbuild/fake
export XDG_CACHE_HOME=$T/cache
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid
R=$T/repo
git init -q -b main "$R"
commit() { git -C "$R" add -A && git -C "$R" commit -q -m "$1"; }
# the host's own release: only the version (#<commit>) can tell the built kernel from the running one
uname -r >"$R/VERSION"; commit "one"
echo "change" >"$R/file"; commit "two"
c1=$(git -C "$R" rev-parse HEAD~1); c2=$(git -C "$R" rev-parse HEAD)
cp -r "$F" "$T/f"
A=$T/f/agenda.yaml P=$T/f/platform/platform.yaml S=$T/f/series.yaml
sed '/^variants:/,$d' "$A" >"$S"   # --series makes the variants

# 1. build + identity: the hook installs nothing, so the running kernel is not the commit
"$KVB" run "$A" -p "$P" --repo "$R" -d "$T/a.db" >"$T/out1" 2>"$T/err1"; rc=$?
check "run exits 1 (variants fail the identity check)" [ "$rc" = 1 ]
check "identity names the built commit's version" grep -q "flashed '#${c1:0:12} SMP" "$T/err1"
check "variant_build rows carry the commits" \
  [ "$(q "$T/a.db" "SELECT group_concat(commit_sha, ' ') FROM (SELECT commit_sha FROM variant_build ORDER BY variant_id)")" = "$c1 $c2" ]
check "first build is not cached, config hash is 16 hex" \
  [ "$(q "$T/a.db" "SELECT count(*) FROM variant_build WHERE cached = 0 AND length(config_hash) = 16 AND toolchain LIKE '%gcc%'")" = 2 ]
check "build logs are artifacts" [ "$(q "$T/a.db" "SELECT count(*) FROM artifact WHERE kind = 'build-log'")" = 2 ]
check "images cached per commit" [ "$(ls "$T/cache/kvbench/images" | grep -c "^${c1:0:12}-")" = 1 ]

# 2. the same again comes from the cache
"$KVB" run "$A" -p "$P" --repo "$R" -d "$T/a.db" >/dev/null 2>"$T/err2"
check "second run uses the cache" [ "$(q "$T/a.db" "SELECT count(*) FROM variant_build WHERE cached = 1")" = 2 ]
check "second run says cached" grep -q "cached in" "$T/err2"

# 3. a commit that does not build fails its variant with the end of the log
touch "$R/BROKEN"; commit "three: broken"
"$KVB" run "$A" -p "$P" --repo "$R" -d "$T/a.db" >/dev/null 2>"$T/err3"; rc=$?
check "broken commit: run exits 1" [ "$rc" = 1 ]
check "broken commit: error quotes the log" \
  [ "$(q "$T/a.db" "SELECT count(*) FROM variant WHERE status = 'failed' AND error LIKE '%failed after%this commit does not build%'")" = 1 ]
git -C "$R" rm -q BROKEN; commit "four: fixed"

# 4. bad inputs: each a clear message and its exit code
mkdir -p "$T/plain"
"$KVB" run "$S" -p "$P" --repo "$T/plain" --series HEAD~1..HEAD -d "$T/b.db" 2>"$T/e" >/dev/null; rc=$?
check "not a git repository: exit 3" [ "$rc" = 3 ]
check "not a git repository: message" grep -q "plain: not a git repository" "$T/e"
"$KVB" run "$S" -p "$P" --repo "$R" --series nope..HEAD -d "$T/b.db" 2>"$T/e" >/dev/null; rc=$?
check "unknown revision: exit 3 and message" [ "$rc" = 3 ] && grep -q "unknown revision 'nope'" "$T/e"
"$KVB" run "$S" -p "$P" --repo "$R" --series HEAD -d "$T/b.db" 2>"$T/e" >/dev/null; rc=$?
check "series without ..: exit 2" [ "$rc" = 2 ]
echo dirty >>"$R/file"
"$KVB" run "$A" -p "$P" --repo "$R" -d "$T/b.db" 2>"$T/e" >/dev/null; rc=$?
check "dirty work tree refused: exit 3" [ "$rc" = 3 ] && grep -q "uncommitted changes.*--allow-dirty" "$T/e"
"$KVB" run "$A" -p "$P" --repo "$R" --allow-dirty -d "$T/b.db" 2>"$T/e" >/dev/null; rc=$?
check "--allow-dirty builds (identity then fails: exit 1)" [ "$rc" = 1 ]
git -C "$R" checkout -q -- file
sed -i 's/kernel: Image/kernel: arch\/x86\/boot\/bzImage/' "$A"
"$KVB" run "$A" -p "$P" --repo "$R" -d "$T/b.db" 2>"$T/e" >/dev/null; rc=$?
check "missing declared output: exit 3" [ "$rc" = 3 ] && grep -q "did not produce its declared output kernel 'arch/x86/boot/bzImage'" "$T/e"
sed -i 's/kernel: arch\/x86\/boot\/bzImage/kernel: Image/' "$A"
git -C "$R" checkout -q -b side HEAD~2; echo side >"$R/side"; commit "side"; git -C "$R" checkout -q main
"$KVB" bisect "$A" -p "$P" --repo "$R" --good side --bad main --metric sched_pipe/usecs_per_op -d "$T/b.db" 2>"$T/e" >/dev/null; rc=$?
check "good not an ancestor of bad: exit 3" [ "$rc" = 3 ] && grep -q "is not an ancestor of --bad main" "$T/e"
"$KVB" bisect "$A" -p "$P" --repo "$R" --good main~3 --bad main --metric sched_pipe -d "$T/b.db" 2>"$T/e" >/dev/null; rc=$?
check "bisect --metric without /: exit 2" [ "$rc" = 2 ]
printf 'HEAD~1\nnot-a-rev # comment\n' >"$T/series.txt"
"$KVB" run "$S" -p "$P" --repo "$R" --series-file "$T/series.txt" -d "$T/b.db" 2>"$T/e" >/dev/null; rc=$?
check "series file: unknown revision with file:line" [ "$rc" = 3 ] && grep -q "series.txt:2: unknown revision 'not-a-rev'" "$T/e"
"$KVB" run "$A" -p "$P" --repo "$R" --series HEAD~1..HEAD -d "$T/b.db" 2>"$T/e" >/dev/null; rc=$?
check "series over an agenda with kernel variants: exit 2" [ "$rc" = 2 ] && grep -q "makes one variant per commit" "$T/e"

# 5. bisect whose endpoints fail: aborts cleanly, and nothing is left behind anywhere
"$KVB" bisect "$A" -p "$P" --repo "$R" --good main~3 --bad main --metric sched_pipe/usecs_per_op -d "$T/c.db" 2>"$T/e" >/dev/null; rc=$?
check "bisect with an unmeasurable endpoint: exit 4" [ "$rc" = 4 ] && grep -q "good endpoint .* cannot be measured" "$T/e"
check "bisect row marked aborted" [ "$(q "$T/c.db" "SELECT status FROM bisect")" = aborted ]
# a failed boot or identity check of an endpoint is the board's until it fails again (a boot
# timeout under load aborted a CI bisect): two runs of the good endpoint, both stored, then abort
check "the endpoint got a second try, both runs stored" \
  sh -c "grep -q 'good endpoint .* could not be measured (.*): measuring it once more' '$T/e' && test \"\$(sqlite3 '$T/c.db' 'SELECT count(*) FROM run')\" = 2"
check "no bisect state left in the repository" [ ! -e "$R/.git/BISECT_START" ] && [ ! -e "$R/.git/BISECT_LOG" ]
check "no worktree registered in the repository" [ "$(git -C "$R" worktree list | wc -l)" = 1 ]
check "repository still on main and clean" [ "$(git -C "$R" symbolic-ref --short HEAD)" = main ] && [ -z "$(git -C "$R" status --porcelain --untracked-files=no)" ]
check "no object directory lock left" [ -z "$(find "$T/cache/kvbench/obj" -name '*.lock')" ]
check "no half-written image left" [ -z "$(find "$T/cache/kvbench/images" -maxdepth 1 -name '.tmp-*')" ]

# 6. Ctrl-C in the middle of a build: the build stops, the bisect is marked interrupted, nothing is left
touch "$R/SLOW"; commit "five: slow to build"; echo x >"$R/six"; commit "six"
"$KVB" bisect "$A" -p "$P" --repo "$R" --good main~1 --bad main --metric sched_pipe/usecs_per_op -d "$T/d.db" \
  >/dev/null 2>"$T/e" &
pid=$!
for _ in $(seq 1200); do [ -n "$(find "$T/cache/kvbench/obj" -maxdepth 1 -name '*.lock')" ] && break; sleep 0.1; done
check "the slow build started (its lock exists)" [ -n "$(find "$T/cache/kvbench/obj" -maxdepth 1 -name '*.lock')" ]
kill -INT "$pid"
wait "$pid"; rc=$?
check "Ctrl-C: non-zero exit" [ "$rc" != 0 ]
check "Ctrl-C: the build says interrupted" grep -q "interrupted" "$T/e"
check "Ctrl-C: bisect marked interrupted, --resume suggested" \
  [ "$(q "$T/d.db" "SELECT status FROM bisect")" = interrupted ] && grep -q "bisect --resume 1" "$T/e"
check "Ctrl-C: no lock, no half-written image, no bisect state" \
  [ -z "$(find "$T/cache/kvbench/obj" -maxdepth 1 -name '*.lock')" ] && \
  [ -z "$(find "$T/cache/kvbench/images" -maxdepth 1 -name '.tmp-*')" ] && [ ! -e "$R/.git/BISECT_START" ]
check "Ctrl-C: no build process left" [ -z "$(pgrep -f "$T/f/build.sh")" ]
check "Ctrl-C in a build: exit 7, as an interrupted run" [ "$rc" = 7 ]

# 7. Ctrl-C during a run that then has no job left to stop (the variant fails its identity
#    check): the run ends incomplete, but the bisect must stop as interrupted, not go on
touch "$T/f/platform/INT"
"$KVB" bisect "$A" -p "$P" --repo "$R" --good main~4 --bad main~2 --metric sched_pipe/usecs_per_op -d "$T/g.db" \
  >/dev/null 2>"$T/e"; rc=$?
rm -f "$T/f/platform/INT"
check "Ctrl-C in a zero-job run: bisect interrupted, exit 7" \
  [ "$rc" = 7 ] && [ "$(q "$T/g.db" "SELECT status FROM bisect")" = interrupted ] && grep -q "bisect --resume 1" "$T/e"
check "Ctrl-C in a zero-job run: one run only, no further step" [ "$(q "$T/g.db" "SELECT count(*) FROM run")" = 1 ]
finish
