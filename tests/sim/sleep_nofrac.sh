#!/bin/sh
# `sleep` (and `usleep`) as boards without a fractional sleep have them, for tests that put
# this script first in PATH under those names. Read from the tools' sources
# (tests/fixtures/field/sleep/PROVENANCE):
#
#  KVB_FAKE_SLEEP=toolbox  AOSP system/core toolbox/sleep.c (Android <= 5): seconds =
#      strtoul(argv[1], &end, 10); no digit at all -> "USAGE: sleep SECONDS" on stderr and
#      exit(-1), i.e. 255; else sleep(seconds) and exit 0. So "0.100" sleeps 0 s, exit 0.
#      That toolbox has no usleep.
#  KVB_FAKE_SLEEP=busybox  busybox coreutils/sleep.c without FEATURE_FLOAT_SLEEP: xatou()
#      dies on "0.100" with "sleep: invalid number '0.100'", exit 1. busybox's usleep applet
#      (miscutils/usleep.c) sleeps its argument in microseconds.
# Whole seconds and microseconds are slept by the real /bin/sleep.
name=${0##*/}
mode=${KVB_FAKE_SLEEP:-toolbox}
if [ "$name" = usleep ]; then
	[ "$mode" = busybox ] || { echo "$name: not found" >&2; exit 127; }
	case $1 in ''|*[!0-9]*) echo "usleep: invalid number '$1'" >&2; exit 1;; esac
	exec /bin/sleep "$(($1 / 1000000)).$(printf %06d $(($1 % 1000000)))"
fi
case $mode in
toolbox)
	[ $# -eq 1 ] || { echo "USAGE: sleep SECONDS" >&2; exit 255; }
	digits=${1%%[!0-9]*}
	[ -n "$digits" ] || { echo "USAGE: sleep SECONDS" >&2; exit 255; }
	exec /bin/sleep "$digits";;
busybox)
	case $1 in ''|*[!0-9]*) echo "sleep: invalid number '$1'" >&2; exit 1;; esac
	exec /bin/sleep "$1";;
esac
echo "sleep_nofrac.sh: unknown KVB_FAKE_SLEEP '$mode'" >&2
exit 2
