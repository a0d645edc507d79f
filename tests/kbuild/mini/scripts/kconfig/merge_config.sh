#!/bin/sh
# See tests/kbuild/mini/README: merge_config.sh -m -O DIR BASE FRAGMENT...: every symbol a
# later file sets replaces the earlier value; the result is DIR/.config.
set -eu
[ "$1" = -m ] && shift
[ "$1" = -O ] && { out=$2; shift 2; }
base=$1; shift
tmp=$(mktemp)
cp "$base" "$tmp"
for f in "$@"; do
	grep -E '^(CONFIG_[A-Za-z0-9_]+=|# CONFIG_[A-Za-z0-9_]+ is not set)' "$f" | while IFS= read -r l; do
		sym=$(printf '%s\n' "$l" | sed -E 's/^# (CONFIG_[A-Za-z0-9_]+) is not set/\1/; s/^(CONFIG_[A-Za-z0-9_]+)=.*/\1/')
		grep -vE "^($sym=|# $sym is not set)" "$tmp" >"$tmp.n" || true
		printf '%s\n' "$l" >>"$tmp.n"
		mv "$tmp.n" "$tmp"
	done
done
mv "$tmp" "$out/.config"
