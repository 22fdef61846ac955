#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/vm/grid-report.sh on a hand-made serial log: each outcome of the guest's thrash grid is
# counted in its column, per scope kind (a cell that did not thrash is neither caught nor
# missed; one killed without thrashing counts with the misses; a kernel kill in a must-not cell is the kernel's, not a false kill); every cell gets a
# row with its sizes; a log without GRID lines is refused.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/test.sh
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
cat >"$d/serial.log" <<'EOT'
init: guest up after 2.17 s, kernel 6.1.0-test
INFO thrash-grid: read_ahead_kb 128
GRID v2 thrash 4 10 50 read 12.2 1.5 caught lim=91 file=48 anon=48 count=16 held=42 refaulted=6
GRID v2 thrash 4 10 50 mmap 12.1 2.4 caught-3 lim=91 file=48 anon=48 count=16 held=42 refaulted=9
GRID v2 thrash 0 10 50 mmap 1.2 - missed lim=512 file=268 anon=268 count=3 held=240 refaulted=900
GRID machine thrash 4 10 50 read 13.0 - nothrash lim=91 file=48 anon=1746 count= held=50 refaulted=0
GRID machine thrash 4 200 50 read 13.0 - kernel lim=64 file=48 anon=1800 count=2 held=15 refaulted=3
GRID machine thrash 0 200 50 read 2.1 1.7 caught lim=512 file=384 anon=1693 count=17 held=120 refaulted=20
GRID machine thrash 0 50 50 mmap 1.9 1.7 unthrashed lim=512 file=307 anon=1611 count=17 held=307 refaulted=0
GRID v2 stream 4 0 50 read - - ok lim=64 file=640 anon=32 count=0 held=- refaulted=-
GRID v2 stream 0 0 90 mmap - - false lim=64 file=640 anon=57 count=16 held=- refaulted=-
GRID machine fits 0 0 50 read - - kernel lim=256 file=102 anon=1708 count= held=- refaulted=-
EOT
out=$(tests/vm/grid-report.sh "$d/serial.log" 2>&1) || fail "grid-report.sh failed: $out"
row() { grep -F "| $1 |" <<<"$out" | head -n 1; }
# scope | thrash | caught | 2-3 s | late/missed/early | kernel | nothrash | must-not | false | kernel
[ "$(row v2)" = "| v2 | 3 | 1 | 1 | 1 | 0 | 0 | 2 | 1 | 0 |" ] || fail "v2 summary: $(row v2)"
[ "$(row machine)" = "| machine | 4 | 1 | 0 | 1 | 1 | 1 | 1 | 0 | 1 |" ] ||
	fail "machine summary: $(row machine)"
grep -qF "| machine | thrash | 4 | 10 | 50 | read | 13.0 | - | nothrash | - | 48 | 1746 | 50 | -4 | 0 |" \
	<<<"$out" || fail "the nothrash cell's row: $out"
grep -qF "| v2 | thrash | unthrottled | 10 | 50 | mmap | 1.2 | - | missed | 512 | 268 | 268 | 240 | 11 | 900 |" \
	<<<"$out" || fail "the missed cell's row: $out"
[ "$(grep -c '^| \(v2\|machine\) | \(thrash\|stream\|fits\) |' <<<"$out")" = 10 ] ||
	fail "not one row per cell: $out"
grep -q "kernel 6.1.0-test under qemu TCG" <<<"$out" && grep -q "read_ahead_kb 128" <<<"$out" ||
	fail "the header lacks the kernel or the read-ahead: $out"
echo "INFO x" >"$d/empty.log"
out=$(tests/vm/grid-report.sh "$d/empty.log" 2>&1)
[ $? = 1 ] && [[ $out == *"no GRID line"* ]] || fail "a log without GRID lines: $out"
out=$(tests/vm/grid-report.sh "$d/missing.log" 2>&1)
[ $? = 2 ] && [[ $out == *"cannot read"* ]] || fail "a missing log: $out"
exit 0
