#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/vm/vm_fincore.c, the guest's fincore, built and run on the host: a file dropped from the
# page cache holds 0 KiB, one read back holds at least what was read, an empty file 0, and a
# missing file is refused with its name (exit 1), a wrong command line with the usage (exit 2).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/test.sh
d=$(mktemp -d /var/tmp/oomguard-test-fincore.XXXXXX)
trap 'rm -rf "$d"' EXIT
${CC:-cc} -std=gnu11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -Wshadow -Wconversion \
	-o "$d/vm_fincore" tests/vm/vm_fincore.c || fail "vm_fincore does not build"
dd if=/dev/urandom of="$d/f" bs=1M count=8 status=none && sync
dd if="$d/f" iflag=nocache count=0 status=none || fail "cannot drop $d/f from the page cache"
[ "$("$d/vm_fincore" "$d/f")" = 0 ] || fail "a dropped file holds $("$d/vm_fincore" "$d/f") KiB"
head -c 4M "$d/f" >/dev/null
held=$("$d/vm_fincore" "$d/f")
[ "$held" -ge 4096 ] && [ "$held" -le 8192 ] || fail "after reading 4 MiB of 8: $held KiB held"
cat "$d/f" >/dev/null
[ "$("$d/vm_fincore" "$d/f")" = 8192 ] || fail "a file read whole holds $("$d/vm_fincore" "$d/f") KiB"
: >"$d/empty"
[ "$("$d/vm_fincore" "$d/empty")" = 0 ] || fail "an empty file: $("$d/vm_fincore" "$d/empty")"
out=$("$d/vm_fincore" "$d/missing" 2>&1)
[ $? = 1 ] && grep -q "$d/missing" <<<"$out" || fail "a missing file: $out"
"$d/vm_fincore" >/dev/null 2>&1
[ $? = 2 ] || fail "no argument: not exit 2"
exit 0
