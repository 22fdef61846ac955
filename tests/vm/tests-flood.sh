# SPDX-License-Identifier: GPL-2.0-only
# Sourced by tests.sh: the cover letter's flood, machine-wide.
skip flood "not written yet"
