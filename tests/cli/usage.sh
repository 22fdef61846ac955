#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The command line: --help lists every sub-command, --version and `version` agree, bad usage
# exits 2 naming the fault (the option and what it takes) in one line, without the usage text;
# an option another command takes is refused.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/test.sh
bin=${OOMGUARD_BIN:-./oomguard}

out=$("$bin" --help) || fail "--help exited $?"
for c in run status sim version; do
	grep -qE "^  $c " <<<"$out" || fail "--help does not list '$c'"
done
v=$("$bin" --version) || fail "--version exited $?"
grep -qE '^oomguard [0-9]+\.[0-9]+\.[0-9]+$' <<<"$v" || fail "--version format: $v"
[ "$("$bin" version)" = "$v" ] || fail "'oomguard version' says $("$bin" version), --version $v"
deb=$(sed -n '1s/^oomguard (\([^)]*\)).*/\1/p' debian/changelog)
[ "oomguard $deb" = "$v" ] || fail "debian/changelog says $deb, --version $v"
"$bin" version extra >/dev/null 2>&1
[ $? -eq 2 ] || fail "version with an argument should exit 2"

# usage_error WANT CMD...: exit 2, stderr exactly one line holding WANT, nothing on stdout.
usage_error() {
	local want=$1 out err rc
	shift
	out=$("$bin" "$@" 2>"$tmp")
	rc=$?
	err=$(cat "$tmp")
	[ $rc -eq 2 ] || fail "$*: exited $rc, want 2"
	[ -z "$out" ] || fail "$*: printed on stdout: $out"
	[ "$(wc -l <"$tmp")" -eq 1 ] || fail "$*: more than one line (the usage?): $err"
	grep -qF -- "$want" "$tmp" || fail "$*: '$err' does not say '$want'"
}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
usage_error "bad value '5' for --interval (valid: a number in 10..10000)" run --interval 5
usage_error "--reserve-permille needs a value N (valid: a number in 1..500)" \
	status --reserve-permille
usage_error "bad value 'loud' for --log-level (valid: error, warning" run --log-level loud
usage_error "unknown option '--bogus'" run --bogus
usage_error "--json is an option of 'oomguard status' only" run --json
usage_error "--dry-run is an option of 'oomguard run' only" status --dry-run
usage_error "--no-reap is an option of 'oomguard run' only" status --no-reap
usage_error "--machine takes no value" run --machine=yes
usage_error "--cgroup: /x/ is listed already (as /x)" status --cgroup /x --cgroup /x/
usage_error "unexpected argument 'now'" run now
usage_error "--seed: 'x' is not a number in 0..4294967295" sim flood --seed x
usage_error "unknown option '--json-please'" sim flood --json-please
usage_error "unknown option '--frob'" --frob

err=$("$bin" frobnicate 2>&1 >/dev/null)
rc=$?
[ $rc -eq 2 ] || fail "unknown command exited $rc, want 2"
grep -q "frobnicate" <<<"$err" || fail "unknown command not named: $err"
grep -q "run, status, sim, version" <<<"$err" || fail "valid commands not listed: $err"

"$bin" >/dev/null 2>&1
[ $? -eq 2 ] || fail "no command should exit 2"
exit 0
