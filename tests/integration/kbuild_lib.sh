# Shared by the kbuild tests: the series repository (tests/kbuild/make-series, cached under
# ~/.cache/kvbench), its two marked commits, the agenda, a phase clock, and the checks that
# nothing is left behind after bisect (docs/design.md#kernels-from-git: only the caches stay).
. "$(dirname "$0")/lib.sh"
t0=$(date +%s)
stamp() { echo "kbuild: $1 after $(( $(date +%s) - t0 )) s" >&2; }
REPO=$("$SRC/tests/kbuild/make-series") || { bad "make-series"; finish; exit 1; }
stamp "series repository ready ($REPO)"
reg=$(git -C "$REPO" log --format=%H --grep='(the regression)' kvb-series)
broken=$(git -C "$REPO" log --format=%H --grep='does not build' kvb-series)
A=$SRC/tests/kbuild/agenda.yaml
[ -n "$reg" ] && [ -n "$broken" ] || bad "fixture commits found"

nothing_left() {
  check "no bisect state left" [ -z "$(ls "$REPO/.git" | grep -i bisect)" ]
  check "no worktree registered" [ "$(git -C "$REPO" worktree list | wc -l)" = 1 ]
  check "no object directory lock left" [ -z "$(find "${XDG_CACHE_HOME:-$HOME/.cache}/kvbench/obj" -maxdepth 1 -name '*.lock')" ]
}
