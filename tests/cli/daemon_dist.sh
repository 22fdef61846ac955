#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# dist/: the example config parses with every documented key set (so the file documents real
# keys), and the unit's system-call filter allows the kill and reap path.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/test.sh
bin=${OOMGUARD_BIN:-./oomguard}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

"$bin" status --config dist/oomguard.conf >/dev/null || fail "dist/oomguard.conf as shipped"
# Uncomment every key but the cgroup paths (which must exist on the machine).
sed -E 's/^#([a-z_]+ = )/\1/; /^cgroup = /d' dist/oomguard.conf >"$tmp"
n=$(grep -cE '^[a-z_]+ = ' "$tmp")
[ "$n" -ge 14 ] || fail "only $n keys in the example"
"$bin" status --config "$tmp" >/dev/null || fail "example with every key set does not parse"
for call in pidfd_open pidfd_send_signal process_mrelease; do
	grep -E '^SystemCallFilter=[^~].*\b'"$call"'\b' dist/oomguard.service >/dev/null ||
		fail "SystemCallFilter lacks $call"
done
grep -q '^ExecReload=.*-HUP' dist/oomguard.service || fail "no reload"
exit 0
