#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/shuffle.sh, the benches' order of runs: a permutation of its input, the same for a seed,
# another for another seed, mixed through (the first quarter of 4 scenarios x 5 contenders x 10
# runs, given scenario by scenario, holds runs of every scenario and contender); a bad seed is
# refused.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/test.sh
in=$(for s in flood fit thrash stuck; do for c in a b c d e; do for r in $(seq 10); do
	echo "$s $c $r"; done; done; done)
a=$(echo "$in" | bench/shuffle.sh 1) || fail "seed 1 failed"
b=$(echo "$in" | bench/shuffle.sh 1)
c=$(echo "$in" | bench/shuffle.sh 2)
[ "$(echo "$a" | sort)" = "$(echo "$in" | sort)" ] || fail "not a permutation of its input"
[ "$a" = "$b" ] || fail "seed 1 gave two orders"
[ "$a" != "$c" ] || fail "seeds 1 and 2 gave the same order"
first=$(echo "$a" | head -n 50)
[ "$(echo "$first" | cut -d' ' -f1 | sort -u | wc -l)" = 4 ] ||
	fail "the first 50 runs miss a scenario: $(echo "$first" | cut -d' ' -f1 | sort | uniq -c)"
[ "$(echo "$first" | cut -d' ' -f2 | sort -u | wc -l)" = 5 ] || fail "the first 50 miss a contender"
err=$(echo x | bench/shuffle.sh x 2>&1) && fail "a bad seed accepted"
case $err in *"shuffle.sh: SEED wants a number"*) ;; *) fail "a bad seed: no clear error: $err" ;; esac
echo ok
