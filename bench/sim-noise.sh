#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The model's flood across a range of --noise rates (docs/sim.md, "The rest of the machine"):
# for each rate, base and rework-v4, with the disk events poll (--wq-stall), no reaper, 2 GiB,
# seeds 1..N. Prints per rule and rate: runs that ended, hangs (the 600 s budget ran out), the
# last kill's range and median (s after the eaters start), the spread (max - min) / mean of the
# runs that ended, and the longest vmstat_update() the poll held.
#   bench/sim-noise.sh [SEEDS [RATE_MS...]]      default: 10 seeds; none 100 300 1000 3000 10000 30000
set -u
cd "$(dirname "$0")/.." || exit 1
bin=${OOMGUARD_BIN:-./oomguard}
[ -x "$bin" ] || { echo "sim-noise.sh: $bin is not built (make oomguard)" >&2; exit 1; }
seeds=${1:-10}
shift $(($# > 0 ? 1 : 0))
rates=("$@")
[ ${#rates[@]} -gt 0 ] || rates=(none 100 300 1000 3000 10000 30000)
field() { grep -o "\"$2\":[^,}]*" <<<"$1" | head -n1 | cut -d: -f2 | tr -d '"'; }

printf '%-7s %-10s %5s %5s %8s %8s %8s %8s %9s\n' noise rule ended hangs min median max spread held_max
for rate in "${rates[@]}"; do
	opt=()
	[ "$rate" = none ] || opt=(--noise "$rate")
	for rule in base rework-v4; do
		ended=() hangs=0 held=0
		for s in $(seq 1 "$seeds"); do
			j=$("$bin" sim flood --policy $rule --seed "$s" --no-reaper --wq-stall "${opt[@]}" --json)
			h=$(field "$j" wq_hold_max_usec)
			[ "${h:-0}" -gt $held ] && held=$h
			if [ "$(field "$j" outcome)" = completed ]; then
				ended+=("$(field "$j" last_kill_usec)")
			else
				hangs=$((hangs + 1))
			fi
		done
		printf '%s\n' "${ended[@]}" | sort -n | awk -v rate="$rate" -v rule=$rule -v h=$hangs \
			-v held=$held '$1 != "" { v[n++] = $1 / 1e6; t += $1 / 1e6 }
			END { if (!n) { printf "%-7s %-10s %5d %5d\n", rate, rule, 0, h; exit }
				med = n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2
				printf "%-7s %-10s %5d %5d %8.1f %8.1f %8.1f %7.1f%% %8.1fs\n", rate, rule, n, h,
					v[0], med, v[n - 1], (v[n - 1] - v[0]) * 100 * n / t, held / 1e6 }'
	done
done
