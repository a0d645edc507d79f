#!/usr/bin/env bash
# The Debian package (issue 31, ctest label `package`): `dpkg-buildpackage -us -uc -b` builds
# kvbench_VERSION_amd64.deb from a copy of the source tree, lintian reports no error, and the
# package installed into a fresh bookworm root (mmdebstrap: apt resolves its Depends; rt-tests,
# linux-perf and man-db from its Recommends) runs the local quick start from the installed share
# directory, `man kvbench`, completion and a report there. Needs root (mmdebstrap --mode=root,
# chroot) and the Debian mirror or apt's cache. Each stage's time is printed; lintian's output, the
# installed tree and the sizes are kept in build/test-artifacts/package/.
. "$(dirname "$0")/../integration/lib.sh"
B=$(cd "${KVB_BUILD_DIR:-build}" && pwd)
SRC=$(cd "$SRC" && pwd)
ART=$B/test-artifacts/package
for t in dpkg-buildpackage lintian mmdebstrap chroot unshare; do
  command -v $t >/dev/null || { echo "SKIP: '$t' not found (scripts/setup installs it)"; echo "0 passed, 0 failed"; exit 0; }
done
if [ "$(id -u)" != 0 ]; then echo "SKIP: needs root (mmdebstrap --mode=root, chroot)"; echo "0 passed, 0 failed"; exit 0; fi
rm -rf "$ART" && mkdir -p "$ART"
t0=$(date +%s) tl=$t0
stage() { local now; now=$(date +%s); echo "time: $1 $((now - tl)) s" | tee -a "$ART/times.txt" >&2; tl=$now; }

ver=$(sed -n 's/^project(kvbench VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")
check "debian/changelog's version is CMakeLists.txt's ($ver)" test "$(cd "$SRC" && dpkg-parsechangelog -S Version)" = "$ver"

# a copy of the tree as git sees it (tracked and new files, nothing ignored): dpkg-buildpackage
# writes into the source tree and its parent directory
mkdir -p "$T/src/kvbench"
if git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
  (cd "$SRC" && git ls-files -z --cached --others --exclude-standard | tar -cf - --null -T -) | tar -xf - -C "$T/src/kvbench"
  commit=$(git -C "$SRC" rev-parse --short=12 HEAD)
  git -C "$SRC" diff --quiet HEAD -- || commit="$commit-modified"
else
  tar -C "$SRC" --exclude='./build*' -cf - . | tar -xf - -C "$T/src/kvbench"
  commit=unknown
fi
# the copy is not a git checkout: the commit --version names comes in through debian/rules
(cd "$T/src/kvbench" && KVB_GIT_COMMIT=$commit DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" \
  dpkg-buildpackage -us -uc -b) >"$ART/build.log" 2>&1; rc=$?
stage dpkg-buildpackage
deb=$T/src/kvbench_${ver}_amd64.deb
check "dpkg-buildpackage -us -uc -b (rc $rc; $ART/build.log)" test "$rc" -eq 0
check "it built kvbench_${ver}_amd64.deb" test -f "$deb"
[ -f "$deb" ] || { tail -30 "$ART/build.log" >&2; finish; exit 1; }
cp "$deb" "$ART/"

lintian --info --pedantic "$T/src/kvbench_${ver}_amd64.changes" >"$ART/lintian.txt" 2>&1; rc=$?
stage lintian
check "lintian: no error (rc $rc): $(grep -c '^E:' "$ART/lintian.txt") E:, $(grep -c '^W:' "$ART/lintian.txt") W: ($ART/lintian.txt)" \
  test "$(grep -c '^E:' "$ART/lintian.txt")" = 0 -a "$rc" -eq 0

# the control fields: libraries from shlibs, the tools kvbench drives as Recommends
dpkg-deb -f "$deb" Depends >"$T/depends"
for d in libsqlite3-0 libcurl4 libssh2-1 libgsl27 libyaml-0-2 libcjson1 libjson-c5 node-d3; do
  check "Depends: $d" grep -qE "(^|, )$d( |,|$)" "$T/depends"
done
dpkg-deb -f "$deb" Recommends >"$T/recommends"
for r in rt-tests linux-perf rt-app trace-cmd openssh-client adb fastboot mkbootimg qemu-system-x86 mmdebstrap; do
  check "Recommends: $r" grep -qE "(^|, )$r(,|$)" "$T/recommends"
done
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' >"$ART/contents.txt"
for f in /usr/bin/kvbench /usr/share/man/man1/kvbench.1.gz /usr/share/bash-completion/completions/kvbench \
  /usr/share/kvbench/platforms/local/platform.yaml /usr/share/kvbench/platforms/qemu-x86_64/platform.yaml \
  /usr/share/kvbench/agendas/quickstart-local.yaml /usr/share/kvbench/results-schema/0001_initial.sql \
  /usr/share/kvbench/results-schema/kvbench-json.schema.json /usr/share/doc/kvbench/docs/outputs.md.gz \
  /usr/share/kvbench/scripts/qemu-board /usr/share/doc/kvbench/copyright /usr/share/doc/kvbench/README.md.gz; do
  check "the package holds $f" grep -qx "$f" "$ART/contents.txt"
done
mkdir -p "$T/x" && dpkg-deb -x "$deb" "$T/x"
check "the binary holds no build path" bash -c "! grep -q '$T/src' '$T/x/usr/bin/kvbench'"
{
  echo "package: $(stat -c %s "$deb") bytes ($(basename "$deb")), Installed-Size: $(dpkg-deb -f "$deb" Installed-Size) KiB"
  echo "Depends: $(cat "$T/depends")"
  echo "Recommends: $(cat "$T/recommends")"
} >"$ART/package.txt"

# a fresh bookworm root: essential packages, then apt installs the .deb (resolving its Depends)
# and the Recommends the local quick start and `man` need. apt's cache is hard-linked in to save
# downloads; eatmydata spares dpkg's fsyncs.
mmdebstrap --mode=root --variant=essential --skip=download/empty \
  --hook-dir=/usr/share/mmdebstrap/hooks/eatmydata --hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount \
  --setup-hook='mkdir -p "$1"/var/cache/apt/archives && cp -al /var/cache/apt/archives/*.deb "$1"/var/cache/apt/archives/ 2>/dev/null || true' \
  --aptopt='APT::Install-Recommends "false"' \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/kvbench/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --include="$deb" --include=rt-tests,linux-perf,man-db \
  bookworm "$T/root" >"$ART/mmdebstrap.log" 2>&1; rc=$?
stage mmdebstrap
check "mmdebstrap: a bookworm root with the package installed (rc $rc; $ART/mmdebstrap.log)" test "$rc" -eq 0
[ "$rc" -eq 0 ] || { tail -20 "$ART/mmdebstrap.log" >&2; finish; exit 1; }
R=$T/root
check "dpkg in the root: kvbench $ver installed" test "$(chroot "$R" dpkg-query -W -f='${Status} ${Version}' kvbench)" = "install ok installed $ver"
check "no source or build tree in the root" test ! -e "$R$SRC"
chroot "$R" dpkg -L kvbench | sort >"$ART/installed-tree.txt"

# in the root (its own mount namespace: /proc, /sys, /dev and a /tmp of its own, gone when it ends)
inroot() {
  unshare -m --propagation private sh -c 'R=$1; shift
    mount -t proc proc "$R/proc" && mount --rbind /sys "$R/sys" && mount --rbind /dev "$R/dev" &&
    mount -t tmpfs tmpfs "$R/tmp" || exit 99
    exec chroot "$R" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"' _ "$R" "$@"
}
check "kvbench --version: version and commit" test "$(inroot kvbench --version | head -1)" = "kvbench $ver (commit $commit)"
check "platform list: the shipped platforms" test "$(inroot kvbench platform list | awk '{print $1}' | tr '\n' ' ')" = "hikey960 juno-r2 lava-hikey960 lava-juno local localhost-ssh qemu-x86_64 qemu-x86_64-icount "
inroot sh -c 'cd /usr/share/kvbench && kvbench run agendas/quickstart-local.yaml -p local -d /root/q.db' >"$ART/quickstart.log" 2>&1; rc=$?
stage quickstart-local
check "the local quick start from /usr/share/kvbench (rc $rc; $ART/quickstart.log)" test "$rc" -eq 0
check "20 ok jobs stored" test "$(inroot kvbench query -d /root/q.db -f csv "select count(*) from job where status = 'ok'" | tail -1)" = 20
check "the diff table printed at the end" grep -q "| hackbench  | time (s) *| 2cpus" "$ART/quickstart.log"
check "a shipped agenda by name: agenda check quickstart-local" grep -q "2 specs, 2 variants, 20 jobs" <(inroot kvbench agenda check quickstart-local 2>&1)
inroot kvbench report -d /root/q.db -o /root/r.html >"$T/report.log" 2>&1; rc=$?
check "report: the page with d3 from node-d3 (rc $rc)" test "$rc" -eq 0 -a "$(grep -c 'kvb-plot' "$R/root/r.html" 2>/dev/null)" -gt 0
inroot sh -c 'MANPAGER=cat MANWIDTH=100 man kvbench' >"$T/man.txt" 2>"$T/man.err"
check "man kvbench" grep -q "^KVBENCH(1)" "$T/man.txt"
check "man kvbench: the shipped files" grep -q "PREFIX/share/kvbench/platforms" "$T/man.txt"
comp() { inroot bash -c '. /usr/share/bash-completion/completions/kvbench; COMP_WORDS=("$@"); COMP_CWORD=$(($#-1)); _kvbench; echo "${COMPREPLY[*]}"' _ "$@"; }
check "bash completion: kvbench plat<TAB> -> platform" test "$(comp kvbench plat)" = platform
check "bash completion: -p loc<TAB> -> the installed platforms" test "$(comp kvbench run a.yaml -p loc)" = "local localhost-ssh"
stage checks
{
  echo "total: $(($(date +%s) - t0)) s"
  cat "$ART/times.txt"
} | tee "$ART/summary.txt" >&2
finish
