#!/bin/sh
# A vendor-style build command for the fast kbuild tests: instead of compiling
# a kernel it writes a raw image holding the banner a kernel built from this
# commit would carry ("Linux version RELEASE (builder) (compiler) #VERSION ...",
# init/version.c), with the release from the tree's VERSION file and the
# KBUILD_BUILD_VERSION kvbench sets. A tree with a BROKEN file fails.
set -eu
# a tree with a SLOW file takes a while (the tests interrupt it)
if [ -f "$KVB_SRC/SLOW" ]; then sleep 60; fi
[ -f "$KVB_SRC/BROKEN" ] && { echo "fake.c:1:1: error: this commit does not build" >&2; exit 2; }
release=$(cat "$KVB_SRC/VERSION")
printf 'pad\000Linux version %s (kvb@test) (gcc (Debian 12.2.0-14) 12.2.0, GNU ld 2.40) #%s SMP PREEMPT_DYNAMIC Thu Jan  1 00:00:00 UTC 1970\n\000' \
	"$release" "$KBUILD_BUILD_VERSION" >"$KVB_OUT/Image"
echo "  LD      Image"
