#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The command line: --help lists every sub-command, --version, bad usage exits 2 naming the fault.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/test.sh
bin=${OOMGUARD_BIN:-./oomguard}

out=$("$bin" --help) || fail "--help exited $?"
for c in run status sim; do
	grep -qE "^  $c " <<<"$out" || fail "--help does not list '$c'"
done
"$bin" --version | grep -qE '^oomguard [0-9]+\.[0-9]+\.[0-9]+$' || fail "--version format"

err=$("$bin" frobnicate 2>&1 >/dev/null)
rc=$?
[ $rc -eq 2 ] || fail "unknown command exited $rc, want 2"
grep -q "frobnicate" <<<"$err" || fail "unknown command not named: $err"
grep -q "run, status, sim" <<<"$err" || fail "valid commands not listed: $err"

"$bin" >/dev/null 2>&1
[ $? -eq 2 ] || fail "no command should exit 2"
exit 0
