#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The lines of stdin in an order shuffled by SEED: the same seed, the same order (with the same
# awk). Each line gets a key from awk's generator seeded with SEED, and the lines are sorted on
# it. (shuf --random-source=<(yes SEED) draws from a constant byte stream: its "shuffle" kept
# the input's round-robin of scenarios, all floods and fits first and every stuck-victim run
# last.)
# Usage: bench/shuffle.sh SEED <LINES
set -euo pipefail
[[ ${1:-} =~ ^[0-9]+$ ]] || { echo "shuffle.sh: SEED wants a number" >&2; exit 2; }
awk -v seed="$1" 'BEGIN { srand(seed) } { printf "%.9f\t%s\n", rand(), $0 }' | sort -k1,1 -s |
	cut -f2-
