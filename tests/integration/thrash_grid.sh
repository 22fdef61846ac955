#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The thrash grid's quick subset (bench/thrash-grid.sh --profile check), with the shipped
# ./oomguard ($OOMGUARD_SHIPPED_BIN): a thrash on a 4 MiB/s disk and one unthrottled must each
# be killed within 2 s of the end of the cold pass (and not before), and a fresh file ten times
# the group streamed at 4 MiB/s beside anon must not be. About a minute. Tools:
# $OOMGUARD_TOOLS (make tools).
set -u
cd "$(dirname "$0")/../.."
out=$(mktemp -d -p "$PWD/build" thrash-grid-check.XXXXXX)
trap 'rm -rf "$out"' EXIT
OOMGUARD_BIN=${OOMGUARD_SHIPPED_BIN:-$PWD/oomguard} bench/thrash-grid.sh --profile check --out "$out"
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 77 ] || for f in "$out"/*/oomguard/daemon.log; do
	echo "== $f"
	grep -v ' debug: ' "$f" | tail -n 5
done
exit $rc
