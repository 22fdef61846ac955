#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/machine/run.sh's order of boots (--order: printed, nothing booted): scenario by scenario
# without repeats or a seed; with them, every cell of every repeat exactly once, in an order the
# seed fixes and another seed changes; bad counts refused.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/test.sh
run=bench/machine/run.sh
grid="--contenders=kernel,oomguard,earlyoom --scenarios=flood,fit --zram=0,1"

# shellcheck disable=SC2086
plain=$($run --order $grid) || fail "--order failed"
want=$(for s in flood fit; do for z in 0 1; do for c in kernel oomguard earlyoom; do
	echo "1 $s $z $c"; done; done; done)
[ "$plain" = "$want" ] || fail "the order without repeats: got
$plain"

# shellcheck disable=SC2086
a=$($run --order $grid --repeats=3 --seed=7) || fail "--order with a seed failed"
# shellcheck disable=SC2086
b=$($run --order $grid --repeats=3 --seed=7)
# shellcheck disable=SC2086
c=$($run --order $grid --repeats=3 --seed=8)
all=$(for r in 1 2 3; do echo "$want" | sed "s/^1 /$r /"; done | sort)
[ "$(echo "$a" | sort)" = "$all" ] || fail "seed 7: not every cell of every repeat once:
$a"
[ "$a" = "$b" ] || fail "seed 7 gave two orders"
[ "$a" != "$c" ] || fail "seeds 7 and 8 gave the same order"
[ "$a" != "$(echo "$all" | sort -k1,1n -s)" ] || fail "seed 7: repeats one after the other"

for bad in --repeats=0 --repeats=x --seed=-1; do
	# shellcheck disable=SC2086
	err=$($run --order $grid $bad 2>&1) && fail "$bad accepted"
	case $err in *"run.sh: --"*) ;; *) fail "$bad: no clear error: $err" ;; esac
done
echo "ok"
