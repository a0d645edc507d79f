#!/usr/bin/env bash
# `cmake --install build --prefix P` (issue 31): the FHS layout, an installed kvbench that finds its
# platforms and agendas under P/share/kvbench with the source tree out of sight (a mount namespace
# hides it), the search order KVB_PLATFORM_PATH, ./platforms, the shipped ones, an install moved
# to another prefix, and `kvbench --version` naming the commit it was built from.
. "$(dirname "$0")/lib.sh"
B=${KVB_BUILD_DIR:-build}
SRC=$(cd "$SRC" && pwd)
P=$T/prefix
cmake --install "$B" --prefix "$P" >"$T/install.log" 2>&1; rc=$?
check "cmake --install --prefix P (rc $rc)" test "$rc" -eq 0
for f in bin/kvbench share/man/man1/kvbench.1 share/bash-completion/completions/kvbench \
  share/kvbench/platforms/local/platform.yaml share/kvbench/platforms/qemu-x86_64/platform.yaml \
  share/kvbench/agendas/quickstart-local.yaml share/kvbench/agendas/quickstart.yaml \
  share/kvbench/results-schema/0001_initial.sql share/kvbench/results-schema/kvbench-json.schema.json \
  share/doc/kvbench/README.md share/doc/kvbench/docs/design.md share/doc/kvbench/docs/outputs.md; do
  check "installed: $f" test -f "$P/$f"
done
check "every page of docs/ is installed" test "$(ls "$SRC"/docs/*.md | wc -l)" = "$(ls "$P"/share/doc/kvbench/docs/*.md | wc -l)"
check "README's links resolve in the installed manual" python3 "$SRC/tests/docs/links.py" "$P/share/doc/kvbench"
check "every migration is installed" test "$(ls "$SRC"/results-schema/*.sql | wc -l)" = "$(ls "$P"/share/kvbench/results-schema/*.sql | wc -l)"
for s in qemu-board qemu-boot get-kernels; do
  check "installed executable: share/kvbench/scripts/$s" test -x "$P/share/kvbench/scripts/$s"
done
# the board cache is stamped with the script's own text: the installed one must be the same file
check "the installed qemu-board is the source's (same board stamp)" cmp -s "$SRC/scripts/qemu-board" "$P/share/kvbench/scripts/qemu-board"
check "installed man page = kvbench help --man" cmp -s "$P/share/man/man1/kvbench.1" <("$KVB" help --man)
check "installed completion = kvbench help --bash-completion" cmp -s "$P/share/bash-completion/completions/kvbench" <("$KVB" help --bash-completion)
check "the man page names the shipped files" grep -q "share/kvbench/platforms" "$P/share/man/man1/kvbench.1"

# --version: the version and the commit (12 hex digits of HEAD, -modified when tracked files differ)
want=$(git -C "$SRC" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
git -C "$SRC" diff --quiet HEAD -- 2>/dev/null || want="$want-modified"
ver=$("$P/bin/kvbench" --version | head -1)
check "--version: version and commit ($ver, want $want)" test "$ver" = "kvbench $(sed -n 's/^project(kvbench VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt") (commit $want)"

# an installed kvbench looks in P/share/kvbench, never in the source tree
mkdir -p "$T/empty"
(cd "$T/empty" && "$P/bin/kvbench" platform show nosuch) >/dev/null 2>"$T/e1"
check "not found: the search path names P/share/kvbench/platforms" grep -q "./platforms, $P/share/kvbench/platforms;" "$T/e1"
check "not found: the source tree is not searched" bash -c "! grep -q '$SRC' '$T/e1'"
# (a user's own platforms in ~/.config/kvbench come first: a fresh HOME lists only the shipped ones)
(cd "$T/empty" && HOME=$T/empty XDG_CONFIG_HOME=$T/empty/.config "$P/bin/kvbench" platform list) >"$T/list"
check "platform list from elsewhere: the shipped platforms" test "$(awk '{print $1}' "$T/list" | tr '\n' ' ')" = "hikey960 juno-r2 lava-hikey960 lava-juno local localhost-ssh qemu-x86_64 qemu-x86_64-icount qemu-x86_64-icount-smp2 "
# search order: KVB_PLATFORM_PATH, then ./platforms, then the shipped ones
mkdir -p "$T/pp/local" "$T/empty/platforms/local"
printf 'name: local\ndescription: from KVB_PLATFORM_PATH\nconnection: {type: local}\nflash: {method: none}\n' >"$T/pp/local/platform.yaml"
printf 'name: local\ndescription: from ./platforms\nconnection: {type: local}\nflash: {method: none}\n' >"$T/empty/platforms/local/platform.yaml"
check "KVB_PLATFORM_PATH wins over ./platforms" grep -q "from KVB_PLATFORM_PATH" <(cd "$T/empty" && KVB_PLATFORM_PATH=$T/pp "$P/bin/kvbench" platform list)
check "./platforms wins over the shipped one" grep -q "from ./platforms" <(cd "$T/empty" && "$P/bin/kvbench" platform list)
rm -rf "$T/empty/platforms"
# a shipped agenda by name; a name that is not shipped is reported as given
(cd "$T/empty" && "$P/bin/kvbench" agenda check quickstart-local) >"$T/ac" 2>&1; rc=$?
check "agenda check NAME: the shipped agenda (rc $rc)" grep -q "2 specs, 2 variants, 20 jobs" "$T/ac"
mkdir -p "$T/empty/agendas"
printf 'workloads: [{name: hackbench}]\n' >"$T/empty/agendas/quickstart-local.yaml"
check "./agendas/NAME wins over the shipped one" grep -q "1 specs, 1 variants" <(cd "$T/empty" && "$P/bin/kvbench" agenda check quickstart-local 2>&1)
rm -rf "$T/empty/agendas"
(cd "$T/empty" && "$P/bin/kvbench" agenda check no-such-agenda) >/dev/null 2>"$T/e2"; rc=$?
check "an unknown agenda name: exit 3 naming it (rc $rc)" test "$rc" -eq 3 -a -n "$(grep no-such-agenda "$T/e2")"

# moved to another prefix, it follows (the data directory is relative to the binary)
mv "$P" "$T/moved"
check "moved install: platform show local" grep -q "^# $T/moved/share/kvbench/platforms/local/platform.yaml" <(cd "$T/empty" && "$T/moved/bin/kvbench" platform show local)
(cd "$T/empty" && "$T/moved/bin/kvbench" platform show nosuch) >/dev/null 2>"$T/e3"
check "moved install: searches its new share dir" grep -q "$T/moved/share/kvbench/platforms" "$T/e3"
mv "$T/moved" "$P"

# the local quick start with the source and build trees hidden (tmpfs over them, in a mount namespace)
if unshare -m true 2>/dev/null; then
  unshare -m --propagation private bash -c '
    mount -t tmpfs none "$1" || exit 9
    test ! -e "$1/platforms" || exit 8
    cd "$2/empty" && "$3/bin/kvbench" run quickstart-local -p local -d "$2/q.db" --no-diff' _ "$SRC" "$T" "$P" \
    >"$T/run.out" 2>&1; rc=$?
  check "quickstart-local from the install, source tree hidden (rc $rc)" test "$rc" -eq 0
  check "it stored 20 ok jobs" test "$(q "$T/q.db" "select count(*) from job where status = 'ok'")" = 20
  check "the run's agenda is the installed one" test "$(q "$T/q.db" "select agenda_path from run")" = "$P/share/kvbench/agendas/quickstart-local.yaml"
else
  echo "note: no mount namespaces here (unshare -m): the hidden-source run is skipped" >&2
fi
finish
