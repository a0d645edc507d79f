#!/usr/bin/env bash
# The real thing (label kbuild): Debian's linux-source-6.1 as a git repository with
# a six-commit series on top (tests/kbuild/make-series: one commit busy-waits 1 ms in
# every pipe write, about 10x the pipe round trip under TCG, measured under load; one
# does not build), kernels built with tinyconfig + what the QEMU board needs
# (tests/kbuild/qemu-x86_64.config), booted on the qemu-x86_64 board. Passed in one
# ctest run in 3043 s under load (2026-12-01), the base image cached.
#   1. kvbench bisect names the regression commit and skips the broken one;
#   2. run --series + diff --series put the change point at the regression commit;
#   3. a "good" that measures worse than "bad" is refused, after the extra boots the
#      endpoints get while they are not decided (one boot each is never decided);
#   4. nothing is left in the repository (bisect state, worktrees) or the cache (locks).
# Times of every phase go to stderr (cold build, incremental steps, bisect, series).
. "$(dirname "$0")/lib.sh"
t0=$(date +%s)
stamp() { echo "kbuild: $1 after $(( $(date +%s) - t0 )) s" >&2; }
REPO=$("$SRC/tests/kbuild/make-series") || { bad "make-series"; finish; exit 1; }
stamp "series repository ready ($REPO)"
reg=$(git -C "$REPO" log --format=%H --grep='(the regression)' kvb-series)
broken=$(git -C "$REPO" log --format=%H --grep='does not build' kvb-series)
A=$SRC/tests/kbuild/agenda.yaml
[ -n "$reg" ] && [ -n "$broken" ] || bad "fixture commits found"

# Ctrl-C once the first step is stored, then --resume: git's bisect state is gone in between
"$KVB" bisect "$A" -p qemu-x86_64 --repo "$REPO" --good kvb-base --bad kvb-series \
  --metric sched_pipe/usecs_per_op --threshold 20 --rounds 2 --max-rounds 6 -d "$T/k.db" >"$T/bisect.out" 2>"$T/bisect.err" &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
  [ "$(q "$T/k.db" "SELECT count(*) FROM bisect_step" 2>/dev/null)" -ge 1 ] 2>/dev/null && break
  sleep 2
done
kill -INT "$pid" 2>/dev/null
wait "$pid"; rc=$?
stamp "bisect interrupted (exit $rc)"
check "interrupted bisect: exit not 0" [ "$rc" != 0 ]
check "interrupted bisect: status interrupted" [ "$(q "$T/k.db" "SELECT status FROM bisect")" = interrupted ]
check "interrupted bisect: no bisect state left" [ -z "$(ls "$REPO/.git" | grep -i bisect)" ]
"$KVB" bisect --resume -d "$T/k.db" >"$T/bisect.out" 2>"$T/bisect.err"
rc=$?
stamp "bisect done (exit $rc)"
grep -hE 'bisect|build .*done|cached' "$T/bisect.err" >&2
cat "$T/bisect.out" >&2
check "bisect exits 0" [ "$rc" = 0 ]
check "bisect names the regression commit" grep -q "^first bad commit: $reg " "$T/bisect.out"
check "bisect stored the first bad commit" [ "$(q "$T/k.db" "SELECT first_bad_sha FROM bisect")" = "$reg" ]
check "the broken commit was skipped" \
  [ "$(q "$T/k.db" "SELECT count(*) FROM bisect_step WHERE commit_sha = '$broken' AND outcome = 'skip'")" = 1 ]
check "git bisect log stored with the skip" \
  [ "$(q "$T/k.db" "SELECT git_log LIKE '%git bisect skip $broken%' FROM bisect")" = 1 ]
check "every step is a run" [ "$(q "$T/k.db" "SELECT count(*) FROM bisect_step WHERE run_id IS NULL OR run_id = 0")" = 0 ]
check "the regression measured worse by > 20 %" \
  [ "$(q "$T/k.db" "SELECT change_pct > 20 FROM bisect")" = 1 ]
check "running kernels were the built commits" \
  [ "$(q "$T/k.db" "SELECT count(*) FROM boot b JOIN variant v ON v.id = b.variant_id JOIN variant_build vb ON vb.variant_id = v.id WHERE b.running_version NOT LIKE '#' || substr(vb.commit_sha, 1, 12) || ' %'")" = 0 ]
q "$T/k.db" "SELECT printf('kbuild: build %s cached=%d %.0f s', substr(commit_sha,1,12), cached, build_s) FROM variant_build" >&2

"$KVB" run "$A" -p qemu-x86_64 --repo "$REPO" --series kvb-base..kvb-series --rounds 3 --no-diff -d "$T/s.db" \
  >"$T/series.out" 2>"$T/series.err"
rc=$?
stamp "series run done (exit $rc)"
check "series run exits 1 (the broken commit fails its variant)" [ "$rc" = 1 ]
check "series: seven variants" [ "$(q "$T/s.db" "SELECT count(*) FROM variant_build")" = 7 ]
# --alpha 0.01: the four comment-only commits before the regression are one population; at
# the default 0.05 E-Divisive would split them by chance one series in twenty
"$KVB" diff --series -d "$T/s.db" --metric usecs_per_op --alpha 0.01 >"$T/diff.out" 2>&1
cat "$T/diff.out" >&2
check "diff --series marks exactly one shift" [ "$(grep -c '<< shift' "$T/diff.out")" = 1 ]
check "the shift is at the regression commit" grep -q "^ *[0-9]* *${reg:0:12} .*<< shift" "$T/diff.out"
check "the broken commit shows its build failure" grep -q "${broken:0:12} .*build failed" "$T/diff.out"
"$KVB" diff --series -d "$T/s.db" --metric usecs_per_op --format json >"$T/diff.json"
check "json: the regression is worse than its parent" \
  python3 -c "import json,sys; g=json.load(open('$T/diff.json'))[0]; r=[c for c in g['commits'] if c['commit']=='$reg'][0]; sys.exit(0 if r['vs_parent']=='worse' and r['change_point'] else 1)"

# a "good" that measures worse than "bad": kvb-fixed takes the delay out again. One boot
# each is never decided (boot-aware), so the endpoints get extra boots before the refusal.
"$KVB" bisect "$A" -p qemu-x86_64 --repo "$REPO" --good kvb-series --bad kvb-fixed \
  --metric sched_pipe/usecs_per_op --threshold 20 --rounds 1 --max-rounds 6 -d "$T/k.db" >/dev/null 2>"$T/swap.err"
rc=$?
stamp "swapped bisect done (exit $rc)"
grep -hE 'bisect|worse' "$T/swap.err" >&2
check "good worse than bad: exit 3" [ "$rc" = 3 ]
check "good worse than bad: says so" grep -q 'measures worse than the "bad"' "$T/swap.err"
check "undecided endpoints got extra boots first" grep -q 'not decided yet.*one more boot of each' "$T/swap.err"
check "extra endpoint runs stored for both endpoints" \
  [ "$(q "$T/k.db" "SELECT count(DISTINCT endpoint) || ' ' || (count(*) >= 2) FROM bisect_endpoint_run WHERE bisect_id = (SELECT max(id) FROM bisect)")" = "2 1" ]
check "swapped bisect: marked failed" [ "$(q "$T/k.db" "SELECT status FROM bisect WHERE id = (SELECT max(id) FROM bisect)")" = failed ]

check "no bisect state left" [ -z "$(ls "$REPO/.git" | grep -i bisect)" ]
check "no worktree registered" [ "$(git -C "$REPO" worktree list | wc -l)" = 1 ]
check "no object directory lock left" [ -z "$(find "${XDG_CACHE_HOME:-$HOME/.cache}/kvbench/obj" -maxdepth 1 -name '*.lock')" ]
stamp "total"
finish
