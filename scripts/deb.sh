#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Builds the Debian package from a copy of the tree (dpkg-buildpackage cleans the tree it runs
# in) and runs lintian on it. Usage: scripts/deb.sh OUTDIR   (make deb: build/deb)
# OUTDIR gets the .deb, the .changes, build.log and lintian.txt; exit 1 on a lintian error.
set -eu
out=${1:?usage: scripts/deb.sh OUTDIR}
rm -rf "$out"
mkdir -p "$out/src"
out=$(cd "$out" && pwd)
# The files of the tree as it is now (git's, with the ones not committed yet; not build/).
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -co --exclude-standard | while read -r f; do [ -e "$f" ] && echo "$f"; done |
		tar -cf - -T - | tar -xf - -C "$out/src"
else
	tar --exclude=./build --exclude=./oomguard -cf - . | tar -xf - -C "$out/src"
fi
start=$(date +%s)
if ! (cd "$out/src" && dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log"
	echo "deb.sh: dpkg-buildpackage failed (whole log: $out/build.log)" >&2
	exit 1
fi
echo "deb.sh: built in $(($(date +%s) - start)) s: $(cd "$out" && ls ./*.deb)"
lintian --info --display-info "$out"/*.changes >"$out/lintian.txt" 2>&1 || true
grep -E '^[EWI]: ' "$out/lintian.txt" | sort | uniq -c | sort -rn || true
if grep -q '^E: ' "$out/lintian.txt"; then
	echo "deb.sh: lintian errors (the whole report: $out/lintian.txt)" >&2
	exit 1
fi
echo "deb.sh: lintian: no errors (the whole report: $out/lintian.txt)"
