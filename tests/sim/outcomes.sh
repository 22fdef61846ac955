#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The outcomes the seeds predict, asserted on the model: the churn livelock under base and OOM
# within 17 rounds under rework; the stuck victim without the reaper, freed with it, and the
# reaper giving up on a victim holding mmap_sem for write so that the next victim is chosen;
# frag: premature OOM kills for order-2/3 requests under the rework, fewer under mainline;
# flood --wq-stall (docs/sim.md, "Why the spread is inverted"): at seed 7 the disk events poll
# holds its CPU's vmstat_update() and base hangs on the stale counter; the reworks complete;
# no scenario's tasks do more work than the model's 2 CPUs can.
set -u
bin=${OOMGUARD_BIN:-./oomguard}
rc=0
field() { # json, name -> value (quotes stripped)
	grep -o "\"$2\":[^,}]*" <<<"$1" | head -n1 | cut -d: -f2 | tr -d '"'
}
expect() { # what, got, op, want
	if ! [ "$2" "$3" "$4" ] 2>/dev/null; then
		echo "FAIL: $1: got '$2', want $3 $4"
		rc=1
	fi
}
expect_str() {
	if [ "$2" != "$3" ]; then
		echo "FAIL: $1: got '$2', want '$3'"
		rc=1
	fi
}
sim() { "$bin" sim "$@" --mem-mib 32 --json; }

j=$(sim churn-livelock --policy base)
expect_str "churn-livelock base outcome" "$(field "$j" outcome)" livelock
expect "churn-livelock base kills" "$(field "$j" oom_kills)" -eq 0
expect "churn-livelock base stall reaches the budget (us)" "$(field "$j" max_stall_usec)" -ge 50000000
expect "churn-livelock base rounds" "$(field "$j" stalled_rounds)" -gt 100
for rule in rework rework-v4 mainline; do
	j=$(sim churn-livelock --policy $rule)
	expect_str "churn-livelock $rule outcome" "$(field "$j" outcome)" completed
	expect "churn-livelock $rule kills" "$(field "$j" oom_kills)" -eq 1
	expect "churn-livelock $rule rounds to OOM" "$(field "$j" rounds_to_oom)" -le 17
	expect "churn-livelock $rule rounds to OOM" "$(field "$j" rounds_to_oom)" -ge 16
done

for rule in base rework rework-v4 mainline; do
	j=$(sim stuck-victim --policy $rule --no-reaper)
	expect_str "stuck-victim $rule no reaper outcome" "$(field "$j" outcome)" stuck
	expect "stuck-victim $rule no reaper kills" "$(field "$j" oom_kills)" -eq 1
	expect "stuck-victim $rule no reaper: allocation never done" "$(field "$j" alloc_done_usec)" -eq 0
	expect "stuck-victim $rule no reaper: victim never exits" "$(field "$j" victim_exit_usec)" -eq 0

	j=$(sim stuck-victim --policy $rule)
	expect_str "stuck-victim $rule outcome" "$(field "$j" outcome)" completed
	expect "stuck-victim $rule kills" "$(field "$j" oom_kills)" -eq 1
	expect "stuck-victim $rule reaped pages" "$(field "$j" reaped_pages)" -gt 0
	expect "stuck-victim $rule reaped victims" "$(field "$j" reaper_successes)" -eq 1
	done_at=$(field "$j" alloc_done_usec)
	exit_at=$(field "$j" victim_exit_usec)
	expect "stuck-victim $rule allocation done" "$done_at" -gt 0
	expect "stuck-victim $rule victim exits after the allocation" "$exit_at" -ge "$done_at"

	j=$(sim stuck-victim-mmap --policy $rule)
	expect_str "stuck-victim-mmap $rule outcome" "$(field "$j" outcome)" completed
	expect "stuck-victim-mmap $rule reaper gave up" "$(field "$j" reaper_giveups)" -eq 1
	# the first victim is never reaped; the next one may be, while its kill's report prints
	expect "stuck-victim-mmap $rule reaped at most the next victim" "$(field "$j" reaper_successes)" -le 1
	expect "stuck-victim-mmap $rule next victim" "$(field "$j" next_victim_kills)" -eq 1
	kill_at=$(field "$j" first_kill_usec)
	done_at=$(field "$j" alloc_done_usec)
	# 10 tries HZ/10 apart: the next victim cannot come before 0.9 s after the first kill.
	expect "stuck-victim-mmap $rule gives up after 10 tries" "$((done_at - kill_at))" -ge 900000
	expect "stuck-victim-mmap $rule first victim exits" "$(field "$j" victim_exit_usec)" -ge "$done_at"
done

# frag, seeds 1-3: a kill is premature when free + freeable page cache could still meet the min
# watermark at order 0 (every kill here, by construction). base (4.3) retries while reclaim
# progresses: no kill; the rework declares OOM as soon as no order-2/3 block exists after
# reclaim; mainline retries on compaction's feedback: at most half the rework's premature kills
# (without should_compact_retry() and 4.8's min-watermark compaction it has 3 to the rework's 4).
declare -A premature
for rule in base rework rework-v4 mainline; do
	premature[$rule]=0
	for s in 1 2 3; do
		j=$(sim frag --policy $rule --seed $s)
		expect_str "frag $rule seed $s outcome" "$(field "$j" outcome)" completed
		p=$(field "$j" premature_kills)
		expect "frag $rule seed $s: every kill premature" "$(field "$j" oom_kills)" -eq "$p"
		premature[$rule]=$((premature[$rule] + p))
	done
done
expect "frag base premature kills (seeds 1-3)" "${premature[base]}" -eq 0
expect "frag rework premature kills (seeds 1-3)" "${premature[rework]}" -ge 3
expect "frag rework-v4 premature kills (seeds 1-3)" "${premature[rework-v4]}" -ge 3
expect "frag mainline premature kills, twice, at most rework's (${premature[rework]})" \
	"$((2 * premature[mainline]))" -le "${premature[rework]}"
# flood --wq-stall, seed 7, no reaper: base's fake progress on a stale remainder keeps the
# poll's GFP_NOIO loop from sleeping, so the remainder is never folded (a hang to the budget);
# the same seed completes without the poll; rework-v4 holds the update too (its
# schedule_timeout(1) does not sleep) but its retries do not read zone_reclaimable(); mainline's
# worker sleeps a jiffy per round and holds nothing.
j=$(sim flood --policy base --seed 7 --no-reaper --wq-stall)
expect_str "flood --wq-stall base seed 7 outcome" "$(field "$j" outcome)" livelock
expect "flood --wq-stall base seed 7: vmstat_update held (us)" "$(field "$j" wq_hold_max_usec)" \
	-ge 100000000
j=$(sim flood --policy base --seed 7 --no-reaper)
expect_str "flood base seed 7 outcome" "$(field "$j" outcome)" completed
declare -A held
for rule in rework-v4 mainline; do
	j=$(sim flood --policy $rule --seed 7 --no-reaper --wq-stall)
	expect_str "flood --wq-stall $rule seed 7 outcome" "$(field "$j" outcome)" completed
	expect "flood --wq-stall $rule seed 7 kills" "$(field "$j" oom_kills)" -ge 76
	held[$rule]=$(field "$j" wq_holds)
done
expect "flood --wq-stall rework-v4 seed 7: vmstat_updates held" "${held[rework-v4]}" -gt 0
expect "flood --wq-stall mainline seed 7: vmstat_updates held" "${held[mainline]}" -eq 0
# Two CPUs do at most two seconds of work a second: a task's reclaim round is on a CPU (and in
# the run queue) for its CPU time, then sleeps its throttle or its jiffy. A model that kept a
# round that ends in a sleep off the run queue for its whole length let base's flood, whose
# rounds all end in a lost trylock's jiffy, do 10.3 CPUs' work (1,046 s in 101 s).
for rule in base rework rework-v4 mainline; do
	for args in "flood" "stuck-victim --no-reaper" "churn-livelock"; do
		# shellcheck disable=SC2086 # the scenario and its options, split on purpose
		j=$(sim $args --policy $rule)
		expect "$args $rule: CPU work (us) within 2 CPUs' time ($(field "$j" end_usec) us, x2)" \
			"$(field "$j" cpu_work_usec)" -le "$((2 * $(field "$j" end_usec)))"
	done
done
exit $rc
