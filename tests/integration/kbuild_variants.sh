#!/usr/bin/env bash
# A variant's own build (issue 39, src/kbuild/variant.h), on a kernel tree in miniature
# (tests/kbuild/mini: make and merge_config.sh without compiling): its config fragment after
# the agenda's, checked against the final .config and shown as the difference from the first
# variant; patch files (git format-patch output and an mbox) applied with git am in kvbench's
# own checkout, the patched commit built and stored with its subject and hash; a patch that
# does not apply fails its variant with git's words. No kernel is built.
. "$(dirname "$0")/lib.sh"
export XDG_CACHE_HOME=$T/cache
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid
R=$T/repo
mkdir -p "$R" && cp -r "$SRC/tests/kbuild/mini/." "$R/"
uname -r >"$R/VERSION"
echo "int uclamp;" >"$R/core.c"
# the file picosh/git-pr's with-cover.patch changes (its blob 586bc0d: tests/fixtures/field/git-am)
printf '# test\n\ntesting git pr\n' >"$R/README.md"
git init -q -b main "$R"
git -C "$R" add -A && git -C "$R" commit -q -m "base"
base=$(git -C "$R" rev-parse HEAD)
# two patches on a side branch, as a list would post them; one file of each, and one mbox of both
git -C "$R" checkout -q -b fix
echo "int uclamp_used;" >>"$R/core.c"; git -C "$R" commit -qam "sched/uclamp: Protect uclamp fast path code with static key"
echo "/* static key */" >>"$R/core.c"; git -C "$R" commit -qam "sched/uclamp: a comment"
mkdir -p "$T/p"
git -C "$R" format-patch -q -o "$T/p" "$base"..fix
cat "$T/p"/*.patch >"$T/p/series.mbox"
git -C "$R" checkout -q main
# a patch that cannot apply onto main: it changes a line main does not have
git -C "$R" checkout -q -b other
echo "int other;" >"$R/core.c"; git -C "$R" commit -qam "other"
echo "int other2;" >>"$R/core.c"; git -C "$R" commit -qam "sched: needs other"
git -C "$R" format-patch -q -1 -o "$T/bad" HEAD
git -C "$R" checkout -q main
P=$SRC/tests/kbuild/fake/platform/platform.yaml
mkdir -p "$T/a"
printf '# CONFIG_UCLAMP_TASK is not set\nCONFIG_CPU_FREQ_GOV_SCHEDUTIL=y\n' >"$T/a/base.config"
printf 'CONFIG_UCLAMP_TASK=y\n' >"$T/a/uclamp.config"
cat >"$T/a/agenda.yaml" <<EOY
config: {iterations: 1}
workloads: [{name: sched_pipe, params: {loops: 1000}}]
build:
  config: [tinyconfig, base.config]
  outputs: {kernel: Image}
variants:
  - {name: plain, git: {rev: main}}
  - {name: uclamp, git: {rev: main}, build: {config: [uclamp.config]}}
  - {name: patched, git: {rev: main, patches: [$(ls "$T"/p/0001-*.patch), $(ls "$T"/p/0002-*.patch)]}, build: {config: [uclamp.config]}}
  - {name: mbox, git: {rev: main, patches: [$T/p/series.mbox]}, build: {config: [uclamp.config]}}
  - {name: nope, git: {rev: main, patches: [$(ls "$T"/bad/*.patch)]}}
  - {name: cover, git: {rev: main, patches: [$SRC/tests/fixtures/field/git-am/git-pr-with-cover.patch]}}
EOY
head_before=$(git -C "$R" rev-parse main)
# the fake board does not install kernels, so the identity check fails every variant (exit 1):
# what is checked here is what was built
"$KVB" run "$T/a/agenda.yaml" -p "$P" --repo "$R" -d "$T/a.db" >"$T/out1" 2>"$T/err1"; rc=$?
check "run exits 1 (fake board: identity fails)" [ "$rc" = 1 ]
vb() { q "$T/a.db" "SELECT $1 FROM variant_build b JOIN variant v ON v.id = b.variant_id WHERE v.name = '$2'"; }
check "a variant's fragment overrides the agenda's: the difference from the final .config" \
  [ "$(vb config_diff uclamp)" = "CONFIG_UCLAMP_TASK: n -> y" ]
check "the first variant has no difference to show" [ "$(vb "coalesce(config_diff, 'NULL')" plain)" = NULL ]
check "its own settings, its own image (config hash)" [ "$(vb config_hash plain)" != "$(vb config_hash uclamp)" ]
check "the difference is said while building" grep -q "variant uclamp: .config against plain's: CONFIG_UCLAMP_TASK: n -> y" "$T/err1"
pc=$(vb commit_sha patched)
check "patched: the built commit is the patched one, onto main" \
  [ "$(vb patched_onto patched)" = "$base" ] && [ -n "$pc" ] && [ "$pc" != "$base" ]
check "patched: subject and hash of each patch commit stored" \
  [ "$(q "$T/a.db" "SELECT group_concat(subject, '|') FROM (SELECT subject FROM variant_patch p JOIN variant v ON v.id = p.variant_id WHERE v.name = 'patched' ORDER BY pos)")" = \
    "sched/uclamp: Protect uclamp fast path code with static key|sched/uclamp: a comment" ] && \
  [ "$(q "$T/a.db" "SELECT commit_sha FROM variant_patch p JOIN variant v ON v.id = p.variant_id WHERE v.name = 'patched' AND pos = 1")" = "$pc" ]
check "patched: the build's subject is the last patch's" [ "$(vb subject patched)" = "sched/uclamp: a comment" ]
check "an mbox of both gives the same commit (fixed committer, the author's dates)" [ "$(vb commit_sha mbox)" = "$pc" ]
check "the patched kernel was built from the patched commit (its image says so)" \
  grep -q "#${pc:0:12} SMP" "$T/cache/kvbench/images/${pc:0:12}-$(vb config_hash patched)/kernel"
check "a patch that does not apply fails its variant with git's words" \
  [ "$(q "$T/a.db" "SELECT count(*) FROM variant WHERE name = 'nope' AND status = 'failed' AND error LIKE '%do not apply onto ${base:0:12} (git am)%sched: needs other%patch does not apply%'")" = 1 ]
check "README.md of the base is the blob the field's patch was made against" \
  [ "$(git -C "$R" rev-parse main:README.md | cut -c1-7)" = 586bc0d ]
check "a series mbox with its cover letter (git-pr's with-cover.patch): the cover letter skipped, both patches applied" \
  [ "$(q "$T/a.db" "SELECT group_concat(subject, '|') FROM (SELECT subject FROM variant_patch p JOIN variant v ON v.id = p.variant_id WHERE v.name = 'cover' ORDER BY pos)")" = \
    "feat: lets build an rnn|chore: add torch to requirements" ] && \
  grep -q "git am: skipped a mail without a diff (a cover letter or a reply): \[PATCH 0/2\] Add torch deps" "$T/err1"
check "the user's repository is untouched: main where it was, no patched commit in it" \
  [ "$(git -C "$R" rev-parse main)" = "$head_before" ] && ! git -C "$R" cat-file -e "$pc^{commit}" 2>/dev/null && \
  [ -z "$(git -C "$R" status --porcelain --untracked-files=no)" ] && [ "$(git -C "$R" symbolic-ref --short HEAD)" = main ]
"$KVB" run "$T/a/agenda.yaml" -p "$P" --repo "$R" -d "$T/a.db" >/dev/null 2>"$T/err2"
check "again: the same patched commit, from the cache" \
  [ "$(q "$T/a.db" "SELECT count(*) FROM variant_build b JOIN variant v ON v.id = b.variant_id WHERE v.name = 'patched' AND b.commit_sha = '$pc' AND b.cached = 1")" = 1 ]

# bad inputs: a variant's fragment Kconfig drops; a missing patch file; build: without git:
printf '# CONFIG_CPU_FREQ_GOV_SCHEDUTIL is not set\n' >"$T/a/nosched.config"
cat >"$T/a/drop.yaml" <<EOY
config: {iterations: 1}
workloads: [sched_pipe]
build: {config: [tinyconfig, base.config], outputs: {kernel: Image}}
variants:
  - {name: u, git: {rev: main}, build: {config: [uclamp.config, nosched.config]}}
EOY
"$KVB" run "$T/a/drop.yaml" -p "$P" --repo "$R" -d "$T/b.db" >/dev/null 2>"$T/e"; rc=$?
check "Kconfig dropped a variant's option: exit 3 naming it" [ "$rc" = 3 ] && grep -q "did not take these fragment options.*CONFIG_UCLAMP_TASK=y" "$T/e"
sed 's/uclamp.config, nosched.config/uclamp.config/; s/rev: main}/rev: main, patches: [none.patch]}/' "$T/a/drop.yaml" >"$T/a/nopatch.yaml"
"$KVB" run "$T/a/nopatch.yaml" -p "$P" --repo "$R" -d "$T/b.db" >/dev/null 2>"$T/e"; rc=$?
check "missing patch file: exit 3 naming the variant's key" [ "$rc" = 3 ] && grep -q "variant 'u': git.patches\[0\].*no patch file '.*none.patch'" "$T/e"
sed 's/git: {rev: main}, //' "$T/a/drop.yaml" >"$T/a/nogit.yaml"
"$KVB" run "$T/a/nogit.yaml" -p "$P" -d "$T/b.db" >/dev/null 2>"$T/e"; rc=$?
check "build: without git: exit 3" [ "$rc" = 3 ] && grep -q "variant 'u': build: settings need a kernel built from git" "$T/e"
# on a terminal the build's progress line says which variant it builds (the thread's four share
# one commit): a build in a fresh cache, under script(1)'s pseudo-terminal (a line at once)
cat >"$T/a/two.yaml" <<EOY
config: {iterations: 1}
workloads: [sched_pipe]
build: {config: [tinyconfig, base.config], outputs: {kernel: Image}}
variants:
  - {name: plain, git: {rev: main}}
  - {name: uclamp, git: {rev: main}, build: {config: [uclamp.config]}}
EOY
XDG_CACHE_HOME=$T/cache2 script -qefc "'$KVB' run '$T/a/two.yaml' -p '$P' --repo '$R' -d '$T/c.db'" /dev/null >"$T/tty" 2>&1
check "a build's progress line names its variant and place" grep -q "build uclamp 2/2 (${base:0:12} " "$T/tty"
if command -v ccache >/dev/null; then
  check "ccache runs in depend mode (a miss is not preprocessed twice)" \
    grep -q "ccache depend mode: 1" "$T/cache2/kvbench/images/${base:0:12}-$(q "$T/c.db" "SELECT config_hash FROM variant_build b JOIN variant v ON v.id = b.variant_id WHERE v.name = 'plain'")/build.log"
fi
check "no object directory lock left" [ -z "$(find "$T/cache/kvbench/obj" -maxdepth 1 -name '*.lock')" ]
cat "$T/err1" >&2; finish
