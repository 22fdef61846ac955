#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make install and make uninstall into a DESTDIR with PREFIX=/usr: the binary in sbin, the unit
# with that binary's path, the manual pages, the bash completion, the configuration; a second
# install keeps a configuration the administrator changed (the shipped one beside it, .new);
# uninstall removes what install put and keeps the changed configuration.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/test.sh
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
inst() {
	make -s "$@" DESTDIR="$dest" PREFIX=/usr >"$dest.out" 2>&1 || fail "make $*: $(cat "$dest.out")"
	cat "$dest.out"
	rm -f "$dest.out"
}

inst install >/dev/null
for f in usr/sbin/oomguard lib/systemd/system/oomguard.service usr/share/man/man8/oomguard.8 \
	usr/share/man/man5/oomguard.conf.5 usr/share/bash-completion/completions/oomguard \
	etc/oomguard.conf usr/share/doc/oomguard/daemon.md; do
	[ -f "$dest/$f" ] || fail "make install did not install /$f"
done
[ -x "$dest/usr/sbin/oomguard" ] || fail "the binary is not executable"
unit=$dest/lib/systemd/system/oomguard.service
grep -qx 'ExecStart=/usr/sbin/oomguard run --config /etc/oomguard.conf' "$unit" ||
	fail "ExecStart: $(grep ExecStart "$unit")"
grep -q '@[A-Z]*@' "$unit" && fail "placeholders left in the unit: $(grep '@[A-Z]*@' "$unit")"
for want in Type=notify NotifyAccess=main 'WatchdogSec=[0-9]'; do
	grep -q "^$want" "$unit" || fail "the unit lacks $want"
done
cmp -s dist/oomguard.conf "$dest/etc/oomguard.conf" || fail "the configuration differs"

# The administrator's change survives a second install and the uninstall.
echo "interval_msec = 250" >>"$dest/etc/oomguard.conf"
out=$(inst install)
grep -q 'oomguard.conf kept as it is' <<<"$out" || fail "second install did not say: $out"
grep -q '^interval_msec = 250$' "$dest/etc/oomguard.conf" || fail "the config was overwritten"
cmp -s dist/oomguard.conf "$dest/etc/oomguard.conf.new" || fail "no oomguard.conf.new"
inst uninstall >/dev/null
left=$(cd "$dest" && find . -type f | sort)
[ "$left" = "./etc/oomguard.conf" ] || fail "uninstall left: $left"

# An unchanged configuration goes with the rest.
inst install >/dev/null
rm "$dest/etc/oomguard.conf"
inst install >/dev/null
inst uninstall >/dev/null
left=$(cd "$dest" && find . -type f)
[ -z "$left" ] || fail "uninstall of an unchanged install left: $left"
exit 0
