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

# Enumerated keys: every value the parser names is in the key's synopsis, and the default is
# the one the page calls so (kill_unit: config_kill_unit_name(); its default from config.c).
values=$(sed -n '/^const char \*config_kill_unit_name/,/^}/p' src/daemon/config.c |
	grep -oE '"[a-z_]+"' | tr -d '"')
[ "$(wc -l <<<"$values")" -ge 4 ] || fail "kill_unit values not found: $values"
synopsis=$(grep -E '^ *kill_unit = ' <<<"$text" | head -n 1)
for v in $values; do
	grep -qE "[ =|]$v(\||$| )" <<<"$synopsis" ||
		fail "oomguard.conf(5): kill_unit = lacks $v: $synopsis"
done
default=$(sed -n 's/^[[:space:]]*c->per_scope.kill_unit = KILL_UNIT_\([A-Z_]*\);.*/\1/p' \
	src/daemon/config.c | tr 'A-Z' 'a-z')
[ -n "$default" ] || fail "kill_unit's default not found in config.c"
grep -qE "(^|[^a-z_])$default \(default\)" <<<"$text" ||
	fail "oomguard.conf(5) does not call kill_unit's default ($default) the default"
text8=$(render man/oomguard.8)
grep -qE "kill_unit = $default\W+\(the default\)" <<<"$text8" ||
	fail "oomguard(8)'s KILL UNITS does not call kill_unit = $default the default"

unit=build/oomguard.service
[ -f "$unit" ] || fail "$unit is not built (make)"
docs=$(sed -n 's/^Documentation=//p' "$unit")
[ -n "$docs" ] || fail "the unit names no Documentation="
for d in $docs; do
	[[ $d =~ ^man:([a-z.]+)\(([0-9])\)$ ]] || fail "Documentation=$d: not a man page"
	[ -f "man/${BASH_REMATCH[1]}.${BASH_REMATCH[2]}" ] || fail "Documentation=$d: no such page"
done
exit 0
