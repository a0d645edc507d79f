#!/usr/bin/env bash
# Kernel builds in CI (label kbuild-ci, in scripts/test): Debian's linux-source-6.1 as a git
# repository with a six-commit series on top (tests/kbuild/make-series: one commit
# busy-waits 1 ms in every pipe write, one does not build), kernels built with tinyconfig +
# what the QEMU board needs (tests/kbuild/qemu-x86_64.config), booted on the qemu-x86_64
# board. Cold (nothing cached) this is one full build and a few incremental ones.
#   1. kvbench bisect, interrupted by Ctrl-C once its first step is stored, then --resume:
#      names the regression commit and skips the broken one; every step is a run; the
#      running kernels were the built commits;
#   2. nothing is left in the repository (bisect state, worktrees) or the cache (locks).
# The series run, diff --series and the swapped endpoints: kbuild_qemu.sh (label kbuild).
# Times of every phase go to stderr.
. "$(dirname "$0")/kbuild_lib.sh"
quiet_host # about the series and bisect, not the host witness (lib.sh)

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
# a bisect that ended on its own before the Ctrl-C (exit 4 once in CI: an endpoint that could not
# be measured) says why in the test's log
[ "$rc" = 7 ] || { echo "interrupted bisect exit $rc; its last lines:" >&2; tail -n 20 "$T/bisect.err" >&2; }
check "interrupted bisect: exit not 0" [ "$rc" != 0 ]
check "interrupted bisect: status interrupted" [ "$(q "$T/k.db" "SELECT status FROM bisect")" = interrupted ]
check "interrupted bisect: no bisect state left" [ -z "$(ls "$REPO/.git" | grep -i bisect)" ]
"$KVB" bisect --resume -d "$T/k.db" >"$T/bisect.out" 2>"$T/bisect.err"
rc=$?
stamp "bisect done (exit $rc)"
# a failed resume says why in the test's log (one CI run saw exit 5 within a second of the Ctrl-C,
# not reproduced since: its message was lost with the test's directory)
[ "$rc" = 0 ] || { echo "bisect --resume exit $rc; its last lines:" >&2; tail -n 20 "$T/bisect.err" >&2; }
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
nothing_left
stamp "total"
finish
