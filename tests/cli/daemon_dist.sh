#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# dist/: the example config parses with every documented key set (so the file documents real
# keys); the unit (build/oomguard.service, from dist/oomguard.service.in) is Type=notify with a
# watchdog, its system-call filter allows the kill and reap path, and systemd-analyze verify
# finds nothing to say about it.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/test.sh
bin=${OOMGUARD_BIN:-./oomguard}
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.service"' EXIT

"$bin" status --config dist/oomguard.conf >/dev/null || fail "dist/oomguard.conf as shipped"
# Uncomment every key but the cgroup paths (which must exist on the machine).
sed -E 's/^#([a-z_]+ = )/\1/; /^cgroup = /d' dist/oomguard.conf >"$tmp"
n=$(grep -cE '^[a-z_]+ = ' "$tmp")
[ "$n" -ge 14 ] || fail "only $n keys in the example"
"$bin" status --config "$tmp" >/dev/null || fail "example with every key set does not parse"
for call in pidfd_open pidfd_send_signal process_mrelease; do
	grep -E '^SystemCallFilter=[^~].*\b'"$call"'\b' build/oomguard.service >/dev/null ||
		fail "SystemCallFilter lacks $call"
done
grep -q '^ExecReload=.*-HUP' build/oomguard.service || fail "no reload"
for want in Type=notify NotifyAccess=main 'WatchdogSec=[1-9]' 'ExecStart=/[^ ]*/oomguard run'; do
	grep -q "^$want" build/oomguard.service || fail "the unit lacks $want"
done
# Verified with the binary under test in ExecStart (the installed path need not exist here).
if command -v systemd-analyze >/dev/null; then
	bindir=$(cd "$(dirname "$bin")" && pwd)
	sed "s|@SBINDIR@|$bindir|g; s|@SYSCONFDIR@|/etc|g" dist/oomguard.service.in \
		>"$tmp.service"
	out=$(systemd-analyze verify --man=no "$tmp.service" 2>&1) || fail "verify: $out"
	rm -f "$tmp.service"
	[ -z "$out" ] || fail "systemd-analyze verify: $out"
fi
exit 0
