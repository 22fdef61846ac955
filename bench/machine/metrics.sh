#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The figures of one cell of the machine bench, from what its guest wrote (CELL/out/: meta,
# events.log, probe.log, samples.log, probe.result, service.result, journal.txt), one "KEY VALUE"
# line each:
#   frozen      seconds of the scenario (start to end) in which the probe was late by > 1 s
#   kills       tasks killed during the scenario: the workload's tasks whose exit the harness saw
#               as SIGKILL or SIGTERM, the probe, the service, and any other pid a kill line of
#               the kernel, oomguard, earlyoom or nohang in the journal names (at its journal
#               time; a SIGTERMed tool that exits 0 is seen only there),
#               and any other unit whose main process systemd saw killed
#   premature   offenders killed while memory was there: MemAvailable stayed >= 10 % of MemTotal
#               (and SwapFree >= 10 % of SwapTotal, with swap) in every sample of the 10 s
#               before the kill was seen (the harness and the journal see it late), and the page
#               cache MemAvailable counts was not being read back: the refaults of those 10 s
#               (mb_sample's 7th column, 4 KiB pages; not applied to samples without it) came
#               to less than 10 % of MemTotal, and in the last 2 s of them at a rate under 1 %
#               of MemTotal a second (the same bound as a rate: a kill made within 2 s of the
#               first refaults, as a thrash must be caught, has no 10 s of them to sum; the
#               leak: the bystanders' files reread at 48 MiB/s for 1.7 s before the kill, 69
#               MiB in all, under the 198 MiB of 10 %). A thrash keeps MemAvailable high with
#               the very pages it rereads (bench/machine's thrash: 1 GiB "available", 5 tabs of
#               6 at 9 MiB/s for 90 s with the kernel alone). Not counted without a sample then,
#               nor for the kernel's own OOM kills
#   wrong       victims that are not offenders: bystanders, the probe, the service, other pids
#   kernel_kills  the kernel's OOM kills (/proc/vmstat oom_kill over the scenario, mb_sample)
#   recovery_s  from the trouble (the scenario's "trouble" event) to the later of the last kill
#               and the end of the last frozen second; 0 without either
#   recovered   0 when a frozen second falls in the scenario's last 10 s, else 1
#   unused_mib  mean MemAvailable over the scenario's last 10 s
#   fit_mib     the largest fit job that finished (fit scenario; "-" otherwise)
#   duration_s, probe (ok|killed), service (ok|killed), contender, scenario, zram, error
# Usage: bench/machine/metrics.sh CELL_DIR
set -u
d=${1:?usage: metrics.sh CELL_DIR}/out
for f in meta events.log probe.log samples.log; do
	[ -r "$d/$f" ] || { echo "metrics.sh: $d/$f missing" >&2; exit 1; }
done
touch_or_empty() { if [ -r "$1" ]; then echo "$1"; else echo /dev/null; fi; }
awk -v P="$(touch_or_empty "$d/probe.result")" -v S="$(touch_or_empty "$d/service.result")" '
FILENAME ~ /meta$/ {
	k = substr($0, 1, index($0, "=") - 1); v = substr($0, index($0, "=") + 1); meta[k] = v
	if (k == "swaps") { n = split(v, a, " "); for (i = 2; i <= n; i += 2) swap_kib += a[i] / 1024 }
	next
}
FILENAME ~ /events.log$/ {
	if ($2 == "start") start = $1
	else if ($2 == "end") end = $1
	else if ($2 == "trouble" && !trouble) trouble = $1
	else if ($2 == "spawn") role[$4] = $5
	else if ($2 == "exit" && (!end) && ($5 == 137 || $5 == 143)) { kt[++nk] = $1; kp[nk] = $4 }
	else if ($2 == "fit" && $4 == "ok" && $3 > fit) fit = $3
	else if ($2 == "fit") fit_seen = 1
	next
}
FILENAME ~ /probe.log$/ {
	split($2, r, "="); split($3, l, "=")
	pr[++np] = r[2]; pl[np] = l[2]
	next
}
FILENAME ~ /samples.log$/ {
	st[++ns] = $1; sa[ns] = $2; sf[ns] = $3; so[ns] = $6; sr[ns] = NF >= 7 ? $7 : -1
	next
}
FILENAME == P || FILENAME == S {
	who = FILENAME == P ? "probe" : "service"
	split($0, kv, "="); res[who, kv[1]] = kv[2]
	next
}
FILENAME ~ /journal.txt$/ {
	t = int($1 * 1000)
	if (!start || t < start || (end && t > end)) next
	pid = ""
	if (match($0, /Killed process [0-9]+/)) {
		pid = substr($0, RSTART + 15, RLENGTH - 15)
		if ($0 ~ /Out of memory/) kernel_kill[pid] = 1
	}
	else if (match($0, /oomguard\[[0-9]+\]: kill scope=[^ ]* pid=[0-9]+/)) {
		s = substr($0, RSTART, RLENGTH); sub(/.*pid=/, "", s); pid = s
	} else if (match($0, /earlyoom\[[0-9]+\]: sending SIG[A-Z]+ to process [0-9]+/)) {
		s = substr($0, RSTART, RLENGTH); sub(/.* process /, "", s); pid = s
	} else if (match($0, /nohang\[[0-9]+\]: +PID: +[0-9]+, name:/)) {
		# nohang names its victim over several lines: its PID, then what it sent
		s = substr($0, RSTART, RLENGTH); sub(/.*PID: +/, "", s); sub(/,.*/, "", s)
		nohang_victim = s
	} else if ($0 ~ /nohang\[[0-9]+\]: +Sending SIG(TERM|KILL) to the victim/)
		pid = nohang_victim
	# Any other unit whose main process was killed (a kill no line above names: nohang says
	# its victim over several lines); the probe and the service count through their results.
	if (match($0, /systemd\[[0-9]+\]: [^ :]+: Main process exited, code=killed/)) {
		s = substr($0, RSTART, RLENGTH); sub(/^systemd\[[0-9]+\]: /, "", s); sub(/:.*/, "", s)
		if (s !~ /^mb-(probe|service)\.service$/) named["unit:" s] = t
	}
	if (pid != "") named[pid] = t
	next
}
function dead(who) {
	return res[who, "ActiveState"] != "" && \
		(res[who, "ActiveState"] != "active" || res[who, "Result"] != "success")
}
END {
	if (!start) { print "error no start event"; exit 1 }
	if (!end) end = (ns ? st[ns] : start)
	if (!trouble) trouble = start
	mem = meta["mem_total_kib"]
	for (i = 1; i <= np; i++)
		if (pr[i] >= start && pr[i] < end && pl[i] > 1000) { frozen++; lastfz = pr[i] + 1000 }
	# The killed: the exits the harness saw (SIGKILL or SIGTERM), and every pid a kill line
	# names (the harness may miss an exit; a kill line may name a task it did not start).
	for (i = 1; i <= nk; i++) killed[kp[i]] = kt[i]
	for (p in named) if (!(p in killed)) killed[p] = named[p]
	split("probe service", ws, " ")
	for (w = 1; w <= 2; w++) {
		status[ws[w]] = dead(ws[w]) ? "killed" : "ok"
		p = res[ws[w], "ExecMainPID"]
		if (p != "" && p != 0) { role[p] = ws[w]; delete killed[p] }
		if (status[ws[w]] == "killed") { kills++; wrong++ }
	}
	for (p in killed) {
		kills++
		if (killed[p] > lastkill) lastkill = killed[p]
		# The main process of the offending unit (the holder of a service, --oom-policy=continue)
		# dies with the unit: no wrong victim, and no memory of its own to be premature about.
		if (p ~ /^unit:mb-work\./) continue
		if (role[p] != "offender") { wrong++; continue }
		if (p in kernel_kill) continue # the kernel OOM killer: never early
		# Premature: memory was there in every sample of the 10 s before (none: not known).
		mina = -1; minf = -1; r0 = -1; r1 = -1; q0 = -1
		for (j = 1; j <= ns; j++) {
			if (st[j] < killed[p] - 10000 || st[j] > killed[p]) continue
			if (mina < 0 || sa[j] < mina) mina = sa[j]
			if (minf < 0 || sf[j] < minf) minf = sf[j]
			if (sr[j] < 0) continue
			if (r0 < 0) r0 = sr[j]
			r1 = sr[j]; t1 = st[j]
			if (q0 < 0 && st[j] >= killed[p] - 2000) { q0 = sr[j]; tq0 = st[j] }
		}
		reread = r0 >= 0 ? (r1 - r0) * 4 : 0
		# ... or as a rate (KiB/s), over the last 2 s: a thrash caught soon after it began has
		# not had 10 s to sum its rereads.
		rate = (q0 >= 0 && t1 > tq0) ? (r1 - q0) * 4 * 1000 / (t1 - tq0) : 0
		if (mina >= 0 && mina >= mem / 10 && (swap_kib == 0 || minf >= swap_kib / 10) && \
		    reread < mem / 10 && rate < mem / 100)
			premature++
	}
	rec_end = lastkill > lastfz ? lastkill : lastfz
	recovery = rec_end > trouble ? (rec_end - trouble) / 1000 : 0
	recovered = (lastfz && lastfz > end - 10000) ? 0 : 1
	n = 0; sum = 0; o0 = ""; o1 = ""
	for (j = 1; j <= ns; j++) {
		if (st[j] >= end - 10000 && st[j] <= end) { n++; sum += sa[j] }
		if (st[j] >= start && st[j] <= end && so[j] != "") { if (o0 == "") o0 = so[j]; o1 = so[j] }
	}
	printf "contender %s\nscenario %s\nzram %s\n", meta["contender"], meta["scenario"], meta["zram"]
	printf "frozen %d\nkills %d\npremature %d\nwrong %d\n", frozen, kills, premature, wrong
	printf "kernel_kills %s\n", o0 == "" ? "-" : o1 - o0
	printf "recovery_s %.1f\nrecovered %d\n", recovery, recovered
	printf "unused_mib %s\n", n ? int(sum / n / 1024) : "-"
	printf "fit_mib %s\n", fit ? fit : (fit_seen ? 0 : "-")
	printf "duration_s %.1f\nprobe %s\nservice %s\n", (end - start) / 1000, status["probe"], \
		status["service"]
	e = meta["error"]; gsub(/[; ]+$/, "", e)
	printf "error %s\n", e == "" ? "-" : e
}' "$d/meta" "$d/events.log" "$d/probe.log" "$d/samples.log" "$(touch_or_empty "$d/probe.result")" \
	"$(touch_or_empty "$d/service.result")" "$(touch_or_empty "$d/journal.txt")"
