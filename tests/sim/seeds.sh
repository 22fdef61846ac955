#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The model against the seed's cover letter (OOM detection rework v4, 15 Dec 2015; its figures
# are in docs/sim.md, "Against the cover letter"), at its machine's size (2 GiB, 2 CPUs, no swap,
# no reaper), `base` against `rework-v4` (the series as measured):
#   - flood (test 1): "invoked oom-killer" 76-78 per run; the model's OOM reports within 20 %
#   - hugepages (test 3): about 89 % of the pages asked for obtained; the model within 20 %
#   - fit (test 2): the smallest margin without OOM, base 15 MiB > patched 9 MiB: in that order
# Two figures the model does not meet are held as exemptions: the check asserts today's range, so
# that a change to the model that moves them is noticed (and, if they then meet the cover letter,
# that the exemption is turned into a requirement); docs/sim.md says why they differ:
#   - rework-v4 / base time of the last kill (cover letter 1.6-2.2; the model about 1.1)
#   - spread across seeds without the stall the cover letter blames (cover letter: base a third,
#     patched 2 %; the model: rework-v4 about 2 %, base below it).
# With that stall (--wq-stall: a work item holding vmstat_update()) and the rest of the machine
# giving a page back every 3 s on average (--noise 3000), seeds 1-10: every run ends (a page given
# back ends a stall that would otherwise hang base to its budget) and base's spread exceeds
# rework-v4's, as in the cover letter; docs/sim.md ("The rest of the machine") gives the rates
# from 100 ms to 30 s over 10 and 20 seeds, and why this is met in form more than in kind.
# Runs the release build (./oomguard, what `make` ships): the sanitizer build takes a minute here.
set -u
cd "$(dirname "$0")/../.." || exit 1
bin=${OOMGUARD_SHIPPED_BIN:-./oomguard}
[ -x "$bin" ] || { echo "FAIL: $bin is not built (make oomguard)"; exit 1; }

# The cover letter's figures and the tolerances (percent).
COVER_OOM_LO=76 COVER_OOM_HI=78 OOM_TOL=20
COVER_HUGE_PCT=89 HUGE_TOL=20 # base 65.25 of 73 (89.4 %), patched 65.15 of 73 (89.2 %)
SEEDS="1 2 3 4 5"
STALL_SEEDS="1 2 3 4 5 6 7 8 9 10" NOISE_MSEC=3000
# Exemptions, today's range: the ratio in hundredths, the spreads in tenths of a percent.
RATIO_NOW_LO=100 RATIO_NOW_HI=120 COVER_RATIO_LO=160 COVER_RATIO_HI=220
BASE_SPREAD_NOW_HI=20 V4_SPREAD_NOW_LO=5 V4_SPREAD_NOW_HI=50

rc=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
field() { # json, name -> value
	grep -o "\"$2\":[^,}]*" <<<"$1" | head -n1 | cut -d: -f2 | tr -d '"'
}
fail() {
	echo "FAIL: $*"
	rc=1
}
sim() { # out-file, args...
	local out=$1
	shift
	"$bin" sim "$@" --no-reaper --json >"$out" 2>"$out.err" || echo "exit $?" >>"$out.err"
}

# Two lanes (the machine has 2 CPUs): base in one, rework-v4 in the other.
for rule in base rework-v4; do
	(
		for s in $SEEDS; do sim "$tmp/flood-$rule-$s" flood --policy $rule --seed "$s"; done
		for s in $STALL_SEEDS; do
			sim "$tmp/stall-$rule-$s" flood --policy $rule --seed "$s" --wq-stall \
				--noise $NOISE_MSEC
		done
		sim "$tmp/huge-$rule" hugepages --policy $rule
		sim "$tmp/fit-$rule" fit --policy $rule
	) &
done
wait
for f in "$tmp"/*.err; do
	[ -s "$f" ] && fail "oomguard sim ${f%.err}: $(head -c 300 "$f")"
done
[ $rc = 0 ] || exit $rc

# flood: every run's OOM reports (the cover letter counts "invoked oom-killer" lines).
lo=$((COVER_OOM_LO * (100 - OOM_TOL))) hi=$((COVER_OOM_HI * (100 + OOM_TOL)))
for rule in base rework-v4; do
	for s in $SEEDS; do
		j=$(cat "$tmp/flood-$rule-$s")
		[ "$(field "$j" outcome)" = completed ] || fail "flood $rule seed $s: $(field "$j" outcome)"
		n=$(field "$j" oom_reports)
		if [ $((n * 100)) -lt $lo ] || [ $((n * 100)) -gt $hi ]; then
			fail "flood $rule seed $s: $n OOM reports, cover letter $COVER_OOM_LO-$COVER_OOM_HI" \
				"(within $OOM_TOL %: $((lo / 100))-$((hi / 100)))"
		fi
		eval "last_${rule//-/_}_$s=$(field "$j" last_kill_usec)"
	done
done

# hugepages: the share obtained over the 20 attempts, in tenths of a percent.
for rule in base rework-v4; do
	j=$(cat "$tmp/huge-$rule")
	req=$(field "$j" huge_requested)
	got=$(grep -o '"huge_hist":{[^}]*}' <<<"$j" | grep -o '"[0-9]*":[0-9]*' | tr -d '"' |
		awk -F: '{ s += $1 * $2; n += $2 } END { print s + 0, n + 0 }')
	read -r sum attempts <<<"$got"
	if [ "${req:-0}" -le 0 ] || [ "$attempts" -ne 20 ]; then
		fail "hugepages $rule: $attempts attempts of ${req:-0} pages, want 20 of some"
		continue
	fi
	share=$((sum * 1000 / (attempts * req)))
	lo=$((COVER_HUGE_PCT * (100 - HUGE_TOL))) hi=$((COVER_HUGE_PCT * (100 + HUGE_TOL)))
	if [ $((share * 10)) -lt $lo ] || [ $((share * 10)) -gt $hi ]; then
		fail "hugepages $rule: $((share / 10)).$((share % 10)) % obtained, cover letter" \
			"$COVER_HUGE_PCT % (within $HUGE_TOL %: $((lo / 100))-$((hi / 100)) %)"
	fi
done

# fit: rework-v4 fits with a smaller margin than base.
fb=$(field "$(cat "$tmp/fit-base")" fit_margin_kib)
fv=$(field "$(cat "$tmp/fit-rework-v4")" fit_margin_kib)
if [ "${fv:-0}" -le 0 ] || [ "${fb:-0}" -le "${fv:-0}" ]; then
	fail "fit: margins base ${fb:-?} KiB, rework-v4 ${fv:-?} KiB; cover letter 15 MiB > 9 MiB"
fi

# Exemption 1: rework-v4 / base time of the last kill after the eaters start, seed by seed.
for s in $SEEDS; do
	b=$(eval echo "\$last_base_$s") v=$(eval echo "\$last_rework_v4_$s")
	if [ "${b:-0}" -le 0 ]; then
		fail "flood base seed $s: no last kill"
		continue
	fi
	r=$((v * 100 / b))
	ratios="${ratios:-}${ratios:+ }$r"
	if [ $r -ge $COVER_RATIO_LO ] && [ $r -le $COVER_RATIO_HI ]; then
		fail "flood seed $s: rework-v4/base time $r/100 now meets the cover letter's" \
			"$COVER_RATIO_LO-$COVER_RATIO_HI/100: make it a requirement here and in docs/sim.md"
	elif [ $r -lt $RATIO_NOW_LO ] || [ $r -gt $RATIO_NOW_HI ]; then
		fail "flood seed $s: rework-v4/base time $r/100 left the documented" \
			"$RATIO_NOW_LO-$RATIO_NOW_HI/100 (cover letter $COVER_RATIO_LO-$COVER_RATIO_HI):" \
			"update docs/sim.md and this range"
	fi
done

# Exemption 2: the spread of that time across seeds, (max - min) / mean, in tenths of a percent.
spread() { # rule [prefix seeds] -> spread
	local r=${1//-/_} p=${2:-last} s
	for s in ${3:-$SEEDS}; do eval echo "\$${p}_${r}_$s"; done |
		awk '{ v[NR] = $1; t += $1 } END { lo = hi = v[1]
			for (i = 2; i <= NR; i++) { if (v[i] < lo) lo = v[i]; if (v[i] > hi) hi = v[i] }
			print int((hi - lo) * 1000 * NR / t) }'
}
sb=$(spread base) sv=$(spread rework-v4)
if [ "$sb" -gt "$sv" ]; then
	fail "flood: base's spread ($sb/10 %) now exceeds rework-v4's ($sv/10 %), as in the cover" \
		"letter: make it a requirement here and in docs/sim.md"
elif [ "$sb" -gt $BASE_SPREAD_NOW_HI ] || [ "$sv" -lt $V4_SPREAD_NOW_LO ] ||
	[ "$sv" -gt $V4_SPREAD_NOW_HI ]; then
	fail "flood: spread across seeds base $sb/10 %, rework-v4 $sv/10 % left the documented" \
		"ranges (base <= $BASE_SPREAD_NOW_HI/10, rework-v4 $V4_SPREAD_NOW_LO-$V4_SPREAD_NOW_HI/10):" \
		"update docs/sim.md and these ranges"
fi

# With the stall and the noise: every run ends, and base varies more than rework-v4.
held=0
for rule in base rework-v4; do
	for s in $STALL_SEEDS; do
		j=$(cat "$tmp/stall-$rule-$s")
		if [ "$(field "$j" outcome)" != completed ]; then
			fail "flood --wq-stall --noise $NOISE_MSEC $rule seed $s: $(field "$j" outcome)" \
				"(a page given back should end every stall)"
			eval "stall_${rule//-/_}_$s=0"
			continue
		fi
		eval "stall_${rule//-/_}_$s=$(field "$j" last_kill_usec)"
		h=$(field "$j" wq_hold_max_usec)
		[ "${h:-0}" -gt $held ] && held=$h
	done
done
tb=$(spread base stall "$STALL_SEEDS") tv=$(spread rework-v4 stall "$STALL_SEEDS")
if [ "$tb" -le "$tv" ]; then
	fail "flood --wq-stall --noise $NOISE_MSEC, seeds 1-10: base's spread ($tb/10 %) is not" \
		"above rework-v4's ($tv/10 %); the cover letter's base varied by a third, patched 2 %"
fi

echo "fit margins base $fb KiB, rework-v4 $fv KiB; time ratio by seed (/100): ${ratios:-};" \
	"spread base $sb/10 %, rework-v4 $sv/10 %; with the stall and noise every $NOISE_MSEC ms" \
	"(seeds 1-10): base $tb/10 %, rework-v4 $tv/10 %, the longest hold $((held / 1000000)) s"
exit $rc
