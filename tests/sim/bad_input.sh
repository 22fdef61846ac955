#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Bad input to `oomguard sim` exits 2 with a message naming the bad value and the valid choices.
set -u
bin=${OOMGUARD_BIN:-./oomguard}
rc=0
check() { # want-in-stderr, args...
	local want=$1 err code
	shift
	err=$("$bin" sim "$@" 2>&1 >/dev/null)
	code=$?
	if [ $code -ne 2 ]; then
		echo "FAIL: oomguard sim $*: exit $code, want 2"
		rc=1
	fi
	if ! grep -qF -- "$want" <<<"$err"; then
		echo "FAIL: oomguard sim $*: stderr lacks '$want': $err"
		rc=1
	fi
}
check "unknown scenario 'nosuch' (valid: flood, fit, hugepages, churn-livelock, stuck-victim, stuck-victim-mmap, frag)" nosuch
check "unknown policy 'fifo' (valid: base, rework, rework-v4, mainline)" flood --policy fifo
check "unknown policy 'x' (valid: base, rework, rework-v4, mainline)" flood --policy=x
check "--seed: 'abc' is not a number" flood --seed abc
check "--seed: '-1' is not a number" flood --seed -1
check "--mem-mib: '33' must be a multiple of 4" flood --mem-mib 33
check "--mem-mib: '16' must be a multiple of 4 in 32..65536" flood --mem-mib 16
check "--mem-mib: '12x' is not a number" flood --mem-mib 12x
check "--noise: '0' must be 1..600000 ms" flood --noise 0
check "--noise: '600001' is not a number in 0..600000" flood --noise 600001
check "--noise: '1s' is not a number" flood --noise=1s
check "--noise needs a value" flood --noise
check "unknown option '--bogus'" flood --bogus
check "--policy needs a value" flood --policy
check "--csv needs a directory, not an empty value" flood --csv=
check "--plot needs a file name, not an empty value" flood --plot ""
check "--plot needs a value" flood --plot
check "no scenario given (valid: flood," --compare
check "one scenario only, got 'fit' after 'flood'" flood fit
"$bin" sim --list >/dev/null || { echo "FAIL: --list exits $?"; rc=1; }
[ "$("$bin" sim --list | wc -l)" -eq 7 ] || { echo "FAIL: --list does not print 7 scenarios"; rc=1; }
exit $rc
