/* SPDX-License-Identifier: GPL-2.0-only */
/* What a rule's regex costs to compile, told before regcomp() is asked: the C libraries expand
 * a bounded repetition into copies of what it repeats (glibc's and musl's alike), so a short
 * pattern can take gigabytes, and a daemon that guards memory must not be the one to take them
 * (found by fuzzing the configuration: "x++++...", a hundred pluses, took over 4 GiB in glibc's
 * regcomp; "(((x{16}){16}){16}){16}" takes 37 MiB in musl's). */
#ifndef OOMGUARD_DAEMON_REGEX_COST_H
#define OOMGUARD_DAEMON_REGEX_COST_H

#include <stdint.h>

/* A repetition's bound, at most: POSIX's own minimum for RE_DUP_MAX. */
#define REGEX_DUP_MAX 255
/* The copies a pattern may expand to, at most (compiled in 20-200 KiB here, either library). */
#define REGEX_COPIES_MAX 1024

/*
 * regex_copies() - about how many copies of its atoms the POSIX extended regex @re expands to:
 * an atom (a character, a bracket expression, an escape) counts 1, a group the sum of what is
 * in it; `*` and `?` leave a count as it is, `+` doubles it (glibc copies the operand), `{n}` and
 * `{n,}` multiply it by n and n + 1, `{n,m}` by n + (m - n)(m - n + 1) / 2 (the optional copies
 * nest, and their automaton grows with their square: x{1,255} compiles to 4-8 MiB, x{255} to
 * 50-70 KiB). Saturates at UINT32_MAX. UINT32_MAX also for a bound over REGEX_DUP_MAX and for
 * two repetitions in a row ("x++", "x?*", "x{2}{3}"): POSIX leaves their meaning undefined, and
 * glibc's regcomp() takes time or memory exponential in their number (found by fuzz_config:
 * seventy '?' in a row did not compile in 12 s). UINT32_MAX for a backreference ("\1"): POSIX
 * extended regexes have none, and glibc's regexec() with one backtracks: "(a*)*\1b" against a
 * command line of 1,000 'a' did not end in 10 s, in every listing's match. Pure.
 */
uint32_t regex_copies(const char *re);

#endif
