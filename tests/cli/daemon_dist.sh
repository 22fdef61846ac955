#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# dist/: the example config parses with every documented key set (so the file documents real
# keys); the unit (build/oomguard.service, from dist/oomguard.service.in) is Type=notify with a
# watchdog, its system-call filter allows the kill and reap path, systemd-analyze verify finds
# nothing to say about it, and its exposure (systemd-analyze security --offline) is no worse
# than UNIT_EXPOSURE_MAX, what the hardening in it reaches (docs/daemon.md, "Privileges").
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/test.sh
bin=${OOMGUARD_BIN:-./oomguard}
UNIT_EXPOSURE_MAX=1.9
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.service"' EXIT

"$bin" status --config dist/oomguard.conf >/dev/null || fail "dist/oomguard.conf as shipped"
# Uncomment every key but the cgroup paths (which must exist on the machine), and the example
# section with its header (its scope the machine instead of a cgroup): a key uncommented there
# without its header would be the global key given twice.
sed -E '/^#\[scope /,$ { s/^#cgroup = .*/machine = yes/; s/^#(\[scope )/\1/ }
	s/^#([a-z_]+ = )/\1/; /^cgroup = /d' dist/oomguard.conf >"$tmp"
n=$(grep -cE '^[a-z_]+ = ' "$tmp")
[ "$n" -ge 14 ] || fail "only $n keys in the example"
"$bin" status --config "$tmp" >/dev/null || fail "example with every key set does not parse"
for call in pidfd_open pidfd_send_signal process_mrelease; do
	grep -E '^SystemCallFilter=[^~].*\b'"$call"'\b' build/oomguard.service >/dev/null ||
		fail "SystemCallFilter lacks $call"
done
grep -q '^ExecReload=.*-HUP' build/oomguard.service || fail "no reload"
for want in Type=notify NotifyAccess=main 'WatchdogSec=[1-9]' 'ExecStart=/[^ ]*/oomguard run' \
	NoNewPrivileges=yes ProtectKernelTunables=yes 'ReadWritePaths=/sys/fs/cgroup$'; do
	grep -q "^$want" build/oomguard.service || fail "the unit lacks $want"
done
# Verified with the binary under test in ExecStart (the installed path need not exist here).
if command -v systemd-analyze >/dev/null; then
	bindir=$(cd "$(dirname "$bin")" && pwd)
	sed "s|@SBINDIR@|$bindir|g; s|@SYSCONFDIR@|/etc|g" dist/oomguard.service.in \
		>"$tmp.service"
	out=$(systemd-analyze verify --man=no "$tmp.service" 2>&1) || fail "verify: $out"
	[ -z "$out" ] || fail "systemd-analyze verify: $out"
	# The cgroups are written to: ProtectControlGroups= would make them read-only.
	grep -q '^ProtectControlGroups=\(yes\|true\|1\|on\)' "$tmp.service" &&
		fail "ProtectControlGroups= makes /sys/fs/cgroup read-only"
	# --offline (systemd 252): the unit as written, no running manager needed.
	if out=$(systemd-analyze security --offline=true --no-pager "$tmp.service" 2>&1); then
		level=$(echo "$out" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
		[ -n "$level" ] || fail "no exposure level in: $out"
		awk -v l="$level" -v m="$UNIT_EXPOSURE_MAX" 'BEGIN { exit !(l <= m) }' ||
			fail "exposure level $level, worse than $UNIT_EXPOSURE_MAX: $out"
	elif ! echo "$out" | grep -q 'offline'; then
		fail "systemd-analyze security: $out"
	fi
	rm -f "$tmp.service"
fi
exit 0
