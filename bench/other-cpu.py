#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The CPU time of processes outside the bench during a run: the bench's claim of an otherwise
idle machine, measured. The bench runs in a cpuacct group of its own (every process it starts
inherits it). Other load is the root group's CPU time (cpuacct.usage: everything) less the
bench group's and less the kernel threads' (kswapd and writeback serve the bench's workload),
so that short-lived processes (a compile's) count too; the processes named as the largest are
those alive at both ends.

  other-cpu.py snap FILE GROUP   record the counters in FILE
  other-cpu.py diff FILE GROUP   print "other_cpu_s S" (CPU seconds of other load since the
                                 snapshot), "other_user_s S" (the part of it in user space) and
                                 "other_top COMM:S,..." (the largest of them)

GROUP is the bench's cpuacct path as /proc/PID/cgroup shows it (e.g. /oomguard-test-bench-cpu-1);
the cpuacct hierarchy is found in /proc/self/mounts. A kernel thread that ended between the two
calls takes its time with it: that time shows as other load. Measured on the bench's machine, it
is not small: writeback and block kworkers of the bench's own I/O come and go with seconds of
system time each (6 CPU s a minute during a fit run's writers, with nothing else running). So
other_user_s also gives the user time of everything outside the bench group (cpuacct.stat of the
root group less the bench's): kernel threads have none, and a compile or a test, what an idle
machine must not run beside the bench, is mostly user time."""
import os
import sys

PF_KTHREAD = 0x00200000
TICKS = os.sysconf("SC_CLK_TCK")


def in_group(pid, group):
    try:
        with open(f"/proc/{pid}/cgroup") as f:
            for line in f:
                _, ctrls, path = line.rstrip("\n").split(":", 2)
                if "cpuacct" in ctrls.split(","):
                    path = path.rstrip("/") or "/"
                    return path == group or path.startswith(group + "/")
    except (OSError, ValueError):
        return True  # gone, or unreadable: not counted
    return False


def cpuacct_root():
    with open("/proc/self/mounts") as f:
        for line in f:
            dev, mnt, fstype, opts = line.split()[:4]
            if fstype == "cgroup" and "cpuacct" in opts.split(","):
                return mnt
    raise OSError("no cgroup v1 cpuacct hierarchy is mounted")


def usage_ns(group):
    with open(os.path.join(cpuacct_root(), group.lstrip("/"), "cpuacct.usage")) as f:
        return int(f.read())


def user_ticks(group):
    """The group's user time from cpuacct.stat, in USER_HZ ticks."""
    with open(os.path.join(cpuacct_root(), group.lstrip("/"), "cpuacct.stat")) as f:
        for line in f:
            key, val = line.split()
            if key == "user":
                return int(val)
    raise ValueError("cpuacct.stat has no user line")


def processes(group):
    """{(pid, starttime): (comm, ticks)} for every other user-space process, and the kernel
    threads' ticks summed."""
    seen, kthreads = {}, 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        # fields[0] is the state (field 3): field N is fields[N - 3]
        ticks = int(fields[14 - 3]) + int(fields[15 - 3])
        if int(fields[9 - 3]) & PF_KTHREAD:
            kthreads += ticks
        elif fields[0] not in ("Z", "X") and not in_group(pid, group):
            # a zombie's /proc/PID/cgroup reads / whatever its group was: not named
            seen[(pid, fields[22 - 3])] = (comm, ticks)
    return seen, kthreads


def main(argv):
    if len(argv) != 4 or argv[1] not in ("snap", "diff"):
        sys.stderr.write("usage: other-cpu.py snap|diff FILE GROUP\n")
        return 2
    what, path, group = argv[1:]
    if not group.startswith("/") or group == "/":
        sys.stderr.write(f"other-cpu.py: GROUP must be a cpuacct group's path, not '{group}'\n")
        return 2
    try:
        root, bench = usage_ns("/"), usage_ns(group)
        root_user, bench_user = user_ticks("/"), user_ticks(group)
    except (OSError, ValueError) as e:
        sys.stderr.write(f"other-cpu.py: cannot read cpuacct.usage: {e}\n")
        return 1
    now, kthreads = processes(group)
    if what == "snap":
        with open(path, "w") as f:
            f.write(f"usage {root} {bench} {kthreads} {root_user} {bench_user}\n")
            for (pid, start), (comm, ticks) in now.items():
                f.write(f"{pid} {start} {ticks}\n")
        return 0
    before = {}
    try:
        with open(path) as f:
            head = f.readline().split()
            for line in f:
                pid, start, ticks = line.split()
                before[(pid, start)] = int(ticks)
        root0, bench0, kthreads0 = int(head[1]), int(head[2]), int(head[3])
        # a snapshot taken before the user time was recorded has none: not printed
        user0 = (int(head[4]), int(head[5])) if len(head) == 6 else None
    except (OSError, ValueError) as e:
        sys.stderr.write(f"other-cpu.py: cannot read the snapshot {path}: {e}\n")
        return 1
    used = {}
    for key, (comm, ticks) in now.items():
        d = ticks - before.get(key, 0)
        if d > 0:
            used[comm] = used.get(comm, 0) + d
    other = (root - root0 - (bench - bench0)) / 1e9 - (kthreads - kthreads0) / TICKS
    top = sorted(used.items(), key=lambda kv: -kv[1])[:3]
    print(f"other_cpu_s {max(other, 0.0):.2f}")
    if user0:
        user = (root_user - user0[0] - (bench_user - user0[1])) / TICKS
        print(f"other_user_s {max(user, 0.0):.2f}")
    print("other_top " + (",".join(f"{c.replace(' ', '_')}:{t / TICKS:.2f}" for c, t in top)
                          if top else "-"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
