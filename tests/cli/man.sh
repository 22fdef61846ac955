#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The manual pages: groff formats them without a warning (-ww); oomguard(8) names every option
# that `oomguard run|status|sim --help` lists (the parser's own table), oomguard.conf(5) every
# key of src/daemon/config.c; both carry the version `oomguard --version` prints; the unit's
# Documentation= names pages that exist.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/test.sh
bin=${OOMGUARD_BIN:-./oomguard}
command -v groff >/dev/null || fail "groff is missing (scripts/deps.sh build installs groff-base)"

# render PAGE: plain text, one long line per paragraph, no hyphenation: words stay whole.
render() {
	groff -man -Tascii -P-cbou -rLL=1000n -rHY=0 "$1" 2>/dev/null
}

version=$("$bin" --version | cut -d' ' -f2)
for page in man/oomguard.8 man/oomguard.conf.5; do
	warn=$(groff -ww -z -man "$page" 2>&1) || fail "groff failed on $page: $warn"
	[ -z "$warn" ] || fail "groff warns on $page: $warn"
	grep -q "^\.TH .* \"oomguard $version\"" "$page" || fail "$page: not version $version"
done

text=$(render man/oomguard.8)
for cmd in run status sim; do
	opts=$("$bin" "$cmd" --help | sed -n 's/^  \(--[a-z-]*\).*/\1/p')
	[ "$(wc -l <<<"$opts")" -ge 8 ] || fail "$cmd --help lists only: $opts"
	for o in $opts; do
		grep -qE -- "(^|[^a-z-])$o([^a-z-]|$)" <<<"$text" || fail "oomguard(8) lacks $cmd $o"
	done
done
for c in $("$bin" --help | sed -n 's/^  \([a-z]*\) .*/\1/p'); do
	grep -qE "^ +$c( |,|$)" <<<"$text" || fail "oomguard(8) lacks the command $c"
done

keys=$(grep -oE 'strcmp\(key, "[a-z_]+"\)' src/daemon/config.c | cut -d'"' -f2 | sort -u)
[ "$(wc -l <<<"$keys")" -ge 15 ] || fail "only $(wc -l <<<"$keys") keys found in config.c"
text=$(render man/oomguard.conf.5)
for k in $keys; do
	grep -qE "(^|[^a-z_])$k([^a-z_]|$)" <<<"$text" || fail "oomguard.conf(5) lacks the key $k"
done

unit=build/oomguard.service
[ -f "$unit" ] || fail "$unit is not built (make)"
docs=$(sed -n 's/^Documentation=//p' "$unit")
[ -n "$docs" ] || fail "the unit names no Documentation="
for d in $docs; do
	[[ $d =~ ^man:([a-z.]+)\(([0-9])\)$ ]] || fail "Documentation=$d: not a man page"
	[ -f "man/${BASH_REMATCH[1]}.${BASH_REMATCH[2]}" ] || fail "Documentation=$d: no such page"
done
exit 0
