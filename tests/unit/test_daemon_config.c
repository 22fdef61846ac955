// SPDX-License-Identifier: GPL-2.0-only
/* Settings: the configuration file, the options that win over it, and the errors a bad
 * file or option gives (file:line and the reason). Also the log's escaping of process names. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "daemon/daemon.h"
#include "daemon/log.h"
#include "daemon/options.h"

static char path[64];

static void write_conf(const char *text)
{
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/oomguard-test-conf-%d.ini", getpid());
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int build(struct config *c, char *err, size_t errsize, int argc, char **argv)
{
	return options_parse(c, argc, argv, err, errsize);
}

static void test_file_then_options(void **state)
{
	struct config c;
	char err[256] = "";
	char *argv[] = {"run", "--config", path, "--interval", "250", "--cgroup", "/b", NULL};
	char *argv_file_only[] = {"run", "--config", path, NULL};

	(void)state;
	write_conf("[oomguard]\ninterval_msec = 500\ncgroup = /a\ncgroup = /c\nprotect = sshd\n"
		   "dry_run = yes\nreap = no\nrealtime = no\nprefer_regex = ^(chrome|java)$\n");
	assert_int_equal(build(&c, err, sizeof(err), 3, argv_file_only), 0);
	assert_int_equal(c.interval_msec, 500);
	assert_int_equal(c.nr_cgroups, 2);
	assert_string_equal(c.cgroups[1], "/c");
	assert_true(c.dry_run);
	assert_false(c.reap);
	assert_false(c.realtime);
	assert_int_equal(c.nr_protect, 1);
	assert_int_equal(c.nr_rules, 1);
	assert_true(c.rules[0].has_re);
	assert_string_equal(c.rules[0].key, "prefer_regex");
	config_release(&c);

	assert_int_equal(build(&c, err, sizeof(err), 7, argv), 0);
	assert_int_equal(c.interval_msec, 250); /* the option wins */
	assert_int_equal(c.nr_cgroups, 1);      /* and replaces the file's list */
	assert_string_equal(c.cgroups[0], "/b");
	assert_true(c.dry_run); /* what the options do not say comes from the file */
	config_release(&c);
	unlink(path);
}

/* scope @path's settings in @c (NULL: the machine), and whether a section gave them */
static void want_scope(const struct config *c, const char *scope_path, const char *section,
		       unsigned int reserve, unsigned int grace, enum kill_unit_setting unit)
{
	struct scope_settings v;
	const struct scope_section *sec = config_scope_settings(c, scope_path, &v);

	if (section)
		assert_true(sec && !strcmp(sec->name, section));
	else
		assert_null(sec);
	assert_int_equal(v.reserve_permille, reserve);
	assert_int_equal(v.term_grace_msec, grace);
	assert_int_equal(v.kill_unit, unit);
}

/* [scope NAME] sections: their scopes watched, their keys over the global ones, options over
 * both. */
static void test_scope_sections(void **state)
{
	struct config c;
	char err[256] = "";
	char *argv[] = {"run", "--config", path, NULL};
	char *argv_grace[] = {"run", "--config", path, "--term-grace", "0", "--kill-cgroup", NULL};
	char *argv_cgroup[] = {"run", "--config", path, "--cgroup", "/x", NULL};

	(void)state;
	write_conf("term_grace_msec = 100\ncgroup = /b\n"
		   "[scope web]\ncgroup = /w\nterm_grace_msec = 3000\nkill_unit = cgroup\n"
		   "[scope batch]\ncgroup = /b/\nreserve_permille = 50\nkill_cgroup = no\n"
		   "[oomguard]\nreserve_permille = 20\n"
		   "[scope host]\nmachine = yes\nkill_unit = process\n");
	assert_int_equal(build(&c, err, sizeof(err), 3, argv), 0);
	assert_int_equal(c.nr_cgroups, 2); /* /b listed once, /w by its section */
	assert_string_equal(c.cgroups[0], "/b");
	assert_string_equal(c.cgroups[1], "/w");
	assert_int_equal(c.machine, 1);
	assert_int_equal(c.nr_sections, 3);
	want_scope(&c, "/w", "web", 20, 3000, KILL_UNIT_CGROUP);
	want_scope(&c, "/w/", "web", 20, 3000, KILL_UNIT_CGROUP);
	want_scope(&c, "/b", "batch", 50, 100, KILL_UNIT_OOM_GROUP);
	want_scope(&c, NULL, "host", 20, 100, KILL_UNIT_PROCESS);
	want_scope(&c, "/w/sub", NULL, 20, 100, KILL_UNIT_AUTO); /* no section: globals */
	config_release(&c);

	/* An option wins over the sections' same key, and leaves their other keys. */
	assert_int_equal(build(&c, err, sizeof(err), 6, argv_grace), 0);
	want_scope(&c, "/w", "web", 20, 0, KILL_UNIT_CGROUP);
	want_scope(&c, "/b", "batch", 50, 0, KILL_UNIT_CGROUP);
	want_scope(&c, NULL, "host", 20, 0, KILL_UNIT_CGROUP);
	config_release(&c);

	/* --cgroup replaces the file's list, the sections' cgroups with it. */
	assert_int_equal(build(&c, err, sizeof(err), 5, argv_cgroup), 0);
	assert_int_equal(c.nr_cgroups, 1);
	assert_string_equal(c.cgroups[0], "/x");
	want_scope(&c, "/x", NULL, 20, 100, KILL_UNIT_AUTO);
	config_release(&c);
	unlink(path);
}

/* kill_unit's names, each read back as itself; the default is auto. */
static void test_kill_unit_names(void **state)
{
	struct scope_settings v = {0};
	struct config c;

	(void)state;
	for (enum kill_unit_setting k = KILL_UNIT_PROCESS; k <= KILL_UNIT_AUTO; k++) {
		assert_int_equal(config_set_scope_key(&v, "kill_unit", config_kill_unit_name(k)),
				 SCOPE_KEY_KILL_UNIT);
		assert_int_equal(v.kill_unit, k);
	}
	assert_string_equal(config_kill_unit_name(KILL_UNIT_AUTO), "auto");
	config_defaults(&c);
	assert_int_equal(c.per_scope.kill_unit, KILL_UNIT_AUTO);
	config_release(&c);
}

struct bad_conf {
	const char *text;
	const char *want; /* substring of the error */
};

static const struct bad_conf bad_confs[] = {
    {"interval_msec = 5\n", ":1: bad value '5' for interval_msec (valid: a number in 10..10000)"},
    {"reserve_permille = 0\n", "bad value '0' for reserve_permille (valid: a number in 1..500)"},
    {"refault_min_pages = -1\n", "refault_min_pages (valid: a number in 0..1073741824)"},
    {"log_level = loud\n", "(valid: error, warning, notice, info, debug)"},
    {"[oomguard]\nfoo = 1\n", ":2: unknown key 'foo'"},
    {"[other]\ninterval_msec = 100\n", ":2: unknown section [other]"},
    {"cgroup = relative/path\n", "bad value 'relative/path' for cgroup"},
    {"dry_run = maybe\n", "bad value 'maybe' for dry_run (valid: yes, true, 1, on, no, false"},
    {"interval_msec = 100\n[oomguard]\nprefer_regex = (\n",
     ":3: bad value '(' for prefer_regex (valid: a POSIX extended regex, at most 255 bytes, "
     "repeating to at most 1024 copies)"},
    {"this is not ini\n", ":1: syntax error"},
    {"kill_unit = group\n",
     ":1: bad value 'group' for kill_unit (valid: process, oom_group, cgroup, auto)"},
    {"term_grace_msec = 10001\n", ":1: bad value '10001' for term_grace_msec (valid: a number in "
				  "0..10000)"},
    /* [scope NAME] sections: the first key names the scope, the others are per-scope keys */
    {"[scope web]\nterm_grace_msec = 5\n",
     ":2: [scope web]: its first key names its scope (cgroup = PATH or machine = yes), not "
     "'term_grace_msec'"},
    {"[scope web]\ncgroup = /w\ninterval_msec = 50\n",
     ":3: [scope web]: 'interval_msec' is no per-scope key (those: reserve_permille, "
     "term_grace_msec, kill_unit, kill_cgroup)"},
    {"[scope web]\ncgroup = /w\nterm_grace_msec = 20000\n",
     ":3: bad value '20000' for term_grace_msec in [scope web] (valid: a number in 0..10000)"},
    {"[scope web]\ncgroup = /w\nkill_unit = all\n",
     ":3: bad value 'all' for kill_unit in [scope web] (valid: process, oom_group, cgroup, auto)"},
    {"[scope web]\ncgroup = /w\nkill_cgroup = maybe\n",
     ":3: bad value 'maybe' for kill_cgroup in [scope web] (valid: yes, true"},
    {"[scope web]\ncgroup = /w\nreserve_permille = 0\n",
     ":3: bad value '0' for reserve_permille in [scope web] (valid: a number in 1..500)"},
    {"[scope a]\ncgroup = /w\n[scope b]\ncgroup = /w/\n",
     ":4: [scope b]: /w/ is named by [scope a] already"},
    {"[scope a]\nmachine = yes\n[scope b]\nmachine = on\n",
     ":4: [scope b]: the machine is named by [scope a] already"},
    {"[scope a]\ncgroup = /w\n[scope b]\ncgroup = /x\n[scope a]\nreserve_permille = 5\n",
     ":6: section [scope a] given twice"},
    {"[scope a]\ncgroup = /w\ncgroup = /x\n",
     ":3: [scope a]: cgroup: a section names its scope once, in its first key"},
    {"[scope a]\nmachine = no\n", ":2: [scope a]: machine = no names no scope (valid: yes)"},
    {"[scope a]\ncgroup = rel\n",
     ":2: bad value 'rel' for cgroup (valid: an absolute path, at most 511 bytes)"},
    {"[scope a b]\ncgroup = /w\n",
     ":2: unknown section [scope a b] (valid: [oomguard], [scope NAME], NAME at most 40"},
    {"[scope ]\ncgroup = /w\n", ":2: unknown section [scope ]"},
    {"[scope a2345678901234567890123456789012345678901]\ncgroup = /w\n",
     ":2: unknown section [scope a2345678901234567890123456789012345678901]"},
    {"[scopes]\ncgroup = /w\n", ":2: unknown section [scopes]"},
    /* lines: the first that fails is named; a key that takes one value comes once */
    {"interval_msec = 100\nfoo\nreserve_permille = 0\n",
     ":2: syntax error: 'foo' is no 'key = value', [section] or comment"},
    {"interval_msec = 100\ninterval_msec = 200\n",
     ":2: interval_msec given again (line 1): give it once"},
    {"interval_msec = 100\n[oomguard]\ninterval_msec = 100\n",
     ":3: interval_msec given again (line 1)"},
    {"[scope a]\ncgroup = /w\nterm_grace_msec = 1\nterm_grace_msec = 2\n",
     ":4: term_grace_msec given again (line 3)"},
    {"protect = \"sshd\"\n", ":1: value \"sshd\" for protect in quotes: give it without them"},
    {"avoid_regex = 'x'\n", ":1: value 'x' for avoid_regex in quotes"},
    {"protect =\n", ":1: bad value '' for protect"},
    {"log_level = info # the default\n",
     ":1: a comment after the value of log_level: put it on a line of its own"},
    {"[oomguard\n", ":1: syntax error: '[' without ']'"},
    {"[oomguard] x\n", ":1: syntax error: text after ']'"},
    {"= 5\n", ":1: syntax error: no key before '='"},
    /* one cgroup watched twice would be two verdicts, two kills, for one shortage */
    {"cgroup = /a\ncgroup = /a/\n", ":2: cgroup: /a/ is listed already (as /a)"},
    {"protect = sshd ; the login daemon\n",
     ":1: a comment after the value of protect: put it on a line of its own"},
};

static void test_bad_files(void **state)
{
	char *argv[] = {"run", "--config", path, NULL};

	(void)state;
	for (size_t i = 0; i < sizeof(bad_confs) / sizeof(bad_confs[0]); i++) {
		struct config c;
		char err[256] = "";

		write_conf(bad_confs[i].text);
		/* the file named first, then the line and the reason */
		if (build(&c, err, sizeof(err), 3, argv) != -EINVAL ||
		    strncmp(err, path, strlen(path)) || !strstr(err, bad_confs[i].want))
			fail_msg("'%s': error '%s', want '%s'", bad_confs[i].text, err,
				 bad_confs[i].want);
	}
	unlink(path);
}

/*
 * What a line is: blanks at its ends and around '=' do not count, an indented line is a line of
 * its own (not the one above continued: "protect = cron" would have become part of sshd's), CR
 * LF endings and a UTF-8 byte order mark are read, the last line needs no newline; a line over
 * 1023 bytes, a NUL byte and a file that is no file are refused, named.
 */
static void test_file_lines(void **state)
{
	char *argv[] = {"run", "--config", path, NULL};
	char long_line[1100], err[256] = "";
	struct config c;
	FILE *f;

	(void)state;
	write_conf("\xEF\xBB\xBFprotect = sshd\r\n    protect = cron\r\n\tinterval_msec\t=\t300  \r\n"
		   "[scope web]\n  cgroup = /w\n  term_grace_msec = 50");
	assert_int_equal(build(&c, err, sizeof(err), 3, argv), 0);
	assert_int_equal(c.nr_protect, 2);
	assert_string_equal(c.protect[0], "sshd");
	assert_string_equal(c.protect[1], "cron");
	assert_int_equal(c.interval_msec, 300);
	want_scope(&c, "/w", "web", CONFIG_DEFAULT_RESERVE_PERMILLE, 50, KILL_UNIT_AUTO);
	config_release(&c);
	/* a section's cgroup listed at the top too, after it, with a slash: one scope */
	write_conf("[scope x]\ncgroup = /b\n[oomguard]\ncgroup = /b/\ncgroup = /c//\n");
	assert_int_equal(build(&c, err, sizeof(err), 3, argv), 0);
	assert_int_equal(c.nr_cgroups, 2);
	assert_string_equal(c.cgroups[1], "/c"); /* kept without its trailing slashes */
	config_release(&c);

	memset(long_line, 'a', sizeof(long_line) - 1);
	memcpy(long_line, "pre_kill_hook = /", 17);
	long_line[sizeof(long_line) - 1] = '\0';
	write_conf(long_line);
	assert_int_equal(build(&c, err, sizeof(err), 3, argv), -EINVAL);
	assert_non_null(strstr(err, ":1: a line of 1099 bytes (at most 1023)"));

	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite("dry_run = no\nprotect = a\0b\n", 1, 28, f), 28);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(build(&c, err, sizeof(err), 3, argv), -EINVAL);
	assert_non_null(strstr(err, ":2: a NUL byte in the line: not a text file"));
	unlink(path);

	argv[2] = "/tmp";
	assert_true(build(&c, err, sizeof(err), 3, argv) < 0);
	assert_string_equal(err, "/tmp: Is a directory");
	argv[2] = path;
}

struct bad_args {
	const char *argv[4];
	const char *want; /* the whole error */
};

/* Each usage error names the option and what it takes, in one line. */
static const struct bad_args bad_args[] = {
    {{"run", "--interval", "x"}, "bad value 'x' for --interval (valid: a number in 10..10000)"},
    {{"run", "--interval"}, "--interval needs a value MSEC (valid: a number in 10..10000)"},
    {{"status", "--stall-bound-permille", "1001"},
     "bad value '1001' for --stall-bound-permille (valid: a number in 1..1000)"},
    {{"run", "--cpu-stall-bound-permille", "-1"},
     "bad value '-1' for --cpu-stall-bound-permille (valid: a number in 0..1000)"},
    {{"run", "--log-level", "loud"},
     "bad value 'loud' for --log-level (valid: error, warning, notice, info, debug)"},
    {{"run", "--cgroup", "rel"},
     "bad value 'rel' for --cgroup (valid: an absolute path, at most 511 bytes)"},
    {{"run", "--protect", "a-name-of-16-chr"},
     "bad value 'a-name-of-16-chr' for --protect (valid: a process name, at most 15 "
     "characters)"},
    {{"run", "--bogus"}, "unknown option '--bogus' (the options: oomguard run --help)"},
    {{"status", "--dry-run"}, "--dry-run is an option of 'oomguard run' only"},
    {{"status", "--oom-kill-disable"}, "--oom-kill-disable is an option of 'oomguard run' only"},
    {{"run", "--json"}, "--json is an option of 'oomguard status' only"},
    {{"run", "--dry-run=yes"}, "--dry-run takes no value, got '--dry-run=yes'"},
    {{"run", "extra"}, "unexpected argument 'extra' (oomguard run takes options only)"},
    {{"run", "--kill-unit", "all"},
     "bad value 'all' for --kill-unit (valid: process, oom_group, cgroup, auto)"},
    {{"run", "--term-grace", "-1"},
     "bad value '-1' for --term-grace (valid: a number in 0..10000)"},
    {{"run", "--config", "/nonexistent/oomguard.conf"},
     "/nonexistent/oomguard.conf: No such file or directory"},
};

static void test_bad_options(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_args) / sizeof(bad_args[0]); i++) {
		const struct bad_args *b = &bad_args[i];
		char *argv[4] = {(char *)b->argv[0], (char *)b->argv[1], (char *)b->argv[2], NULL};
		int argc = b->argv[2] ? 3 : 2;
		struct config c;
		char err[256] = "";
		int r = build(&c, err, sizeof(err), argc, argv);

		if (r == 0)
			config_release(&c);
		if (r != -EINVAL || strcmp(err, b->want))
			fail_msg("%s %s: %d '%s', want '%s'", b->argv[0], b->argv[1], r, err,
				 b->want);
	}
}

/* --help is no error; the usage text lists every option the parser takes, each of them taken. */
static void test_help_from_the_table(void **state)
{
	static const char *const takes[][2] = {
	    {"--config", "/dev/null"}, {"--cgroup", "/x"},        {"--machine", NULL},
	    {"--no-machine", NULL},    {"--interval", "100"},    {"--dry-run", NULL},
	    {"--no-reap", NULL},       {"--no-realtime", NULL},  {"--oom-kill-disable", NULL}, {"--reserve-permille", "10"},
	    {"--stall-bound-permille", "500"}, {"--cpu-stall-bound-permille", "0"},
	    {"--refault-min-pages", "64"}, {"--protect", "sshd"},
	    {"--prefer", "x"},         {"--avoid", "y"},          {"--prefer-cgroup", "/a"},
	    {"--avoid-cgroup", "/b"},  {"--log-level", "debug"},  {"--root", "/"},
	    {"--json", NULL}};
	char usage[2][4096] = {"", ""}, err[256];
	struct config c;
	char *help[] = {"run", "--help", NULL};

	(void)state;
	for (int k = 0; k < 2; k++) {
		FILE *f = fmemopen(usage[k], sizeof(usage[k]) - 1, "w");

		assert_non_null(f);
		options_usage(f, k ? "status" : "run");
		fclose(f);
	}
	assert_int_equal(build(&c, err, sizeof(err), 2, help), OPTIONS_HELP);
	/* Each command's usage lists only what it takes. */
	assert_null(strstr(usage[0], "--json"));
	assert_null(strstr(usage[1], "--dry-run"));
	for (size_t i = 0; i < sizeof(takes) / sizeof(takes[0]); i++) {
		int k = !strcmp(takes[i][0], "--json"); /* status only */
		char *argv[] = {k ? "status" : "run", (char *)takes[i][0], (char *)takes[i][1],
				NULL};
		char word[64];

		snprintf(word, sizeof(word), "  %s", takes[i][0]);
		if (!strstr(usage[k], word))
			fail_msg("%s is taken but not in the usage text", takes[i][0]);
		if (build(&c, err, sizeof(err), takes[i][1] ? 3 : 2, argv) != 0)
			fail_msg("%s is in the usage text but refused: %s", takes[i][0], err);
		config_release(&c);
	}
}

struct esc_case {
	const char *in, *out;
};

static const struct esc_case esc_cases[] = {
    {"bash", "bash"},
    {"a b", "a\\x20b"},
    {"x\ny", "x\\x0ay"},
    {"q\"\\", "q\\x22\\x5c"},
    {"\x1b[31mred", "\\x1b[31mred"},
    {"caf\xc3\xa9", "caf\\xc3\\xa9"},
};

static void test_escape_comm(void **state)
{
	char out[ESCAPED_COMM_LEN];

	(void)state;
	for (size_t i = 0; i < sizeof(esc_cases) / sizeof(esc_cases[0]); i++) {
		escape_comm(esc_cases[i].in, out, sizeof(out));
		assert_string_equal(out, esc_cases[i].out);
	}
	escape_comm("\n\n\n\n", out, 9); /* truncates on whole escapes */
	assert_string_equal(out, "\\x0a\\x0a");
}

static void test_log_prefix(void **state)
{
	int fds[2], saved;
	char buf[256];
	ssize_t n;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	saved = dup(2);
	dup2(fds[1], 2);
	log_set_journal(1);
	log_msg(LOG_PRIO_WARNING, "kill pid=%d", 42);
	log_set_journal(0);
	log_msg(LOG_PRIO_NOTICE, "plain");
	log_msg(LOG_PRIO_DEBUG, "hidden at the default level");
	dup2(saved, 2);
	close(saved);
	close(fds[1]);
	n = read(fds[0], buf, sizeof(buf) - 1);
	close(fds[0]);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf, "<4>kill pid=42\noomguard: notice: plain\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_file_then_options),   cmocka_unit_test(test_bad_files),
	    cmocka_unit_test(test_scope_sections),      cmocka_unit_test(test_kill_unit_names),
	    cmocka_unit_test(test_bad_options),         cmocka_unit_test(test_file_lines),
	    cmocka_unit_test(test_help_from_the_table), cmocka_unit_test(test_escape_comm),
	    cmocka_unit_test(test_log_prefix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
