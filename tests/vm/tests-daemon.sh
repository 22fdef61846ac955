# SPDX-License-Identifier: GPL-2.0-only
# Sourced by tests.sh: the daemon's cgroup v2 tests.
skip daemon-v2 "not written yet"
