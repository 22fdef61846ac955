// SPDX-License-Identifier: GPL-2.0-only
/* Settings: one table of keys shared by the configuration file and the command line. */
#include "daemon/config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/config_file.h"
#include "daemon/log.h"
#include "daemon/regex_cost.h"
#include "policy/progress.h"

#define STR_(x) #x
#define STR(x)  STR_(x)
/* what a rule's regex may be (regex_cost.h says why it is bounded beyond its length) */
#define REGEX_VALID                                                                               \
	"a POSIX extended regex, at most " STR(CONFIG_REGEX_MAX_LEN) " bytes, repeating to at "    \
	"most " STR(REGEX_COPIES_MAX) " copies"

void config_defaults(struct config *c)
{
	memset(c, 0, sizeof(*c));
	c->interval_msec = CONFIG_DEFAULT_INTERVAL_MSEC;
	c->machine = -1;
	c->reap = true;
	c->realtime = true;
	c->per_scope.reserve_permille = CONFIG_DEFAULT_RESERVE_PERMILLE;
	c->per_scope.kill_unit = KILL_UNIT_AUTO;
	c->stall_bound_permille = PROGRESS_STALL_BOUND_PERMILLE;
	c->cpu_stall_bound_permille = PROGRESS_CPU_STALL_BOUND_PERMILLE;
	c->refault_min_pages = PROGRESS_REFAULT_MIN_PAGES;
	c->log_level = LOG_PRIO_INFO;
	c->oomd_xattrs = true;
	c->hook_timeout_msec = CONFIG_HOOK_TIMEOUT_MSEC_DEFAULT;
}

static int parse_bool(const char *v, bool *ret)
{
	if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1") || !strcmp(v, "on")) {
		*ret = true;
		return 0;
	}
	if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "0") || !strcmp(v, "off")) {
		*ret = false;
		return 0;
	}
	return -EINVAL;
}

static int parse_uint(const char *v, uint64_t lo, uint64_t hi, uint64_t *ret)
{
	char *end;
	unsigned long long x;

	if (*v < '0' || *v > '9')
		return -EINVAL;
	errno = 0;
	x = strtoull(v, &end, 10);
	if (errno || *end || x < lo || x > hi)
		return -EINVAL;
	*ret = x;
	return 0;
}

static int copy_str(char *dst, size_t size, const char *v)
{
	size_t len = strlen(v);

	if (len >= size)
		return -EINVAL;
	memcpy(dst, v, len + 1);
	return 0;
}

static int parse_level(const char *v, int *ret)
{
	static const struct {
		const char *name;
		int prio;
	} levels[] = {{"error", LOG_PRIO_ERR},
		      {"warning", LOG_PRIO_WARNING},
		      {"notice", LOG_PRIO_NOTICE},
		      {"info", LOG_PRIO_INFO},
		      {"debug", LOG_PRIO_DEBUG}};

	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		if (!strcmp(v, levels[i].name)) {
			*ret = levels[i].prio;
			return 0;
		}
	}
	return -EINVAL;
}

void config_valid(const char *key, char *buf, size_t size)
{
	static const struct {
		const char *key;
		const char *text;
	} valid[] = {
	    {"interval_msec",
	     "a number in " STR(CONFIG_INTERVAL_MSEC_MIN) ".." STR(CONFIG_INTERVAL_MSEC_MAX)},
	    {"cgroup", "an absolute path, at most " STR(CONFIG_PATH_MAX_LEN) " bytes"},
	    {"reserve_permille", "a number in 1.." STR(CONFIG_RESERVE_PERMILLE_MAX)},
	    {"stall_bound_permille", "a number in 1.." STR(CONFIG_STALL_BOUND_PERMILLE_MAX)},
	    {"cpu_stall_bound_permille", "a number in 0.." STR(CONFIG_STALL_BOUND_PERMILLE_MAX)},
	    {"protect", "a process name, at most " STR(CONFIG_COMM_MAX_LEN) " characters"},
	    {"prefer_regex", REGEX_VALID},
	    {"avoid_regex", REGEX_VALID},
	    {"prefer_cgroup",
	     "an absolute cgroup path, at most " STR(CONFIG_REGEX_MAX_LEN) " bytes"},
	    {"avoid_cgroup",
	     "an absolute cgroup path, at most " STR(CONFIG_REGEX_MAX_LEN) " bytes"},
	    {"protect_cgroup",
	     "an absolute cgroup path, at most " STR(CONFIG_REGEX_MAX_LEN) " bytes"},
	    {"prefer_cmdline", REGEX_VALID},
	    {"avoid_cmdline", REGEX_VALID},
	    {"prefer_uid", "a uid or MIN-MAX, below 4294967295"},
	    {"avoid_uid", "a uid or MIN-MAX, below 4294967295"},
	    {"protect_uid", "a uid or MIN-MAX, below 4294967295"},
	    {"prefer_exe", "an absolute path, at most " STR(CONFIG_REGEX_MAX_LEN) " bytes"},
	    {"avoid_exe", "an absolute path, at most " STR(CONFIG_REGEX_MAX_LEN) " bytes"},
	    {"protect_exe", "an absolute path, at most " STR(CONFIG_REGEX_MAX_LEN) " bytes"},
	    {"log_level", "error, warning, notice, info, debug"},
	    {"root", "a directory, at most " STR(CONFIG_PATH_MAX_LEN) " bytes"},
	    {"pre_kill_hook",
	     "an absolute path and its arguments, at most " STR(CONFIG_PATH_MAX_LEN) " bytes"},
	    {"post_kill_hook",
	     "an absolute path and its arguments, at most " STR(CONFIG_PATH_MAX_LEN) " bytes"},
	    {"pre_kill_wait_msec", "a number in 0.." STR(CONFIG_PRE_KILL_WAIT_MSEC_MAX)},
	    {"hook_timeout_msec", "a number in " STR(CONFIG_HOOK_TIMEOUT_MSEC_MIN) ".." STR(
				      CONFIG_HOOK_TIMEOUT_MSEC_MAX)},
	    {"dbus_address",
	     "a D-Bus address (unix:path=...), at most " STR(CONFIG_PATH_MAX_LEN) " bytes"},
	    {"metrics_textfile_dir",
	     "an absolute path, at most " STR(CONFIG_PATH_MAX_LEN) " bytes"},
	    {"term_grace_msec", "a number in 0.." STR(CONFIG_TERM_GRACE_MSEC_MAX)},
	    {"kill_unit", "process, oom_group, cgroup, auto"},
	};

	if (!strcmp(key, "refault_min_pages")) {
		snprintf(buf, size, "a number in 0..%llu",
			 (unsigned long long)CONFIG_REFAULT_MIN_PAGES_MAX);
		return;
	}
	for (size_t i = 0; i < sizeof(valid) / sizeof(valid[0]); i++) {
		if (!strcmp(key, valid[i].key)) {
			snprintf(buf, size, "%s", valid[i].text);
			return;
		}
	}
	snprintf(buf, size, "yes, true, 1, on, no, false, 0, off"); /* the truth values */
}

/* The rule keys: what each does, and to what. */
static const struct {
	const char *key;
	enum match_action action;
	enum match_attr attr;
} rule_keys[] = {
    {"prefer_regex", MATCH_PREFER, MATCH_NAME},	   {"avoid_regex", MATCH_AVOID, MATCH_NAME},
    {"prefer_cmdline", MATCH_PREFER, MATCH_CMDLINE}, {"avoid_cmdline", MATCH_AVOID, MATCH_CMDLINE},
    {"prefer_uid", MATCH_PREFER, MATCH_UID},	   {"avoid_uid", MATCH_AVOID, MATCH_UID},
    {"protect_uid", MATCH_PROTECT, MATCH_UID},	   {"prefer_exe", MATCH_PREFER, MATCH_EXE},
    {"avoid_exe", MATCH_AVOID, MATCH_EXE},	   {"protect_exe", MATCH_PROTECT, MATCH_EXE},
    {"prefer_cgroup", MATCH_PREFER, MATCH_CGROUP},   {"avoid_cgroup", MATCH_AVOID, MATCH_CGROUP},
    {"protect_cgroup", MATCH_PROTECT, MATCH_CGROUP},
};

/* The command-line option of a regex rule key. */
static const char *regex_option(const char *key)
{
	return !strcmp(key, "prefer_regex")     ? "prefer"
	       : !strcmp(key, "avoid_regex")    ? "avoid"
	       : !strcmp(key, "prefer_cmdline") ? "prefer-cmdline"
						: "avoid-cmdline";
}

int config_rule_key(const char *key)
{
	for (size_t i = 0; i < sizeof(rule_keys) / sizeof(rule_keys[0]); i++)
		if (!strcmp(key, rule_keys[i].key))
			return (int)i;
	return -1;
}

void config_clear_rules(struct config *c, const char *key)
{
	size_t n = 0;

	for (size_t i = 0; i < c->nr_rules; i++)
		if (strcmp(c->rules[i].key, key))
			c->rules[n++] = c->rules[i];
	c->nr_rules = n;
}

/* "UID" or "MIN-MAX", decimal, below 2^32 - 1 (the kernel's invalid uid). */
static int parse_uid_range(const char *v, uint32_t *ret_min, uint32_t *ret_max)
{
	char *end;
	unsigned long long lo, hi;

	if (*v < '0' || *v > '9')
		return -EINVAL;
	errno = 0;
	lo = hi = strtoull(v, &end, 10);
	if (*end == '-') {
		if (end[1] < '0' || end[1] > '9')
			return -EINVAL;
		hi = strtoull(end + 1, &end, 10);
	}
	if (errno || *end || lo > hi || hi >= UINT32_MAX)
		return -EINVAL;
	*ret_min = (uint32_t)lo;
	*ret_max = (uint32_t)hi;
	return 0;
}

/* One more rule (room for it checked). Return: 0, -EINVAL for a bad value. */
static int add_rule(struct config *c, int k, const char *value)
{
	struct match_rule *m = &c->rules[c->nr_rules];

	memset(m, 0, sizeof(*m));
	m->key = rule_keys[k].key;
	m->action = rule_keys[k].action;
	m->attr = rule_keys[k].attr;
	if (copy_str(m->value, sizeof(m->value), value) || !value[0])
		return -EINVAL;
	if (m->attr == MATCH_UID && parse_uid_range(value, &m->uid_min, &m->uid_max))
		return -EINVAL;
	if ((m->attr == MATCH_EXE || m->attr == MATCH_CGROUP) && value[0] != '/')
		return -EINVAL;
	/* A regex that does not compile is refused here, where the file's line is known;
	 * config_finish() compiles the rules that are kept. */
	if (m->attr == MATCH_NAME || m->attr == MATCH_CMDLINE) {
		if (regex_copies(value) > REGEX_COPIES_MAX ||
		    regcomp(&m->re, value, REG_EXTENDED | REG_NOSUB))
			return -EINVAL;
		regfree(&m->re);
	}
	c->nr_rules++;
	return 0;
}

/* A hook's command: an absolute path, then its arguments (split at spaces, no shell). */
static int set_command(char *dst, const char *v)
{
	return v[0] && v[0] != '/' ? -EINVAL : copy_str(dst, CONFIG_PATH_MAX, v);
}

const char *config_kill_unit_name(enum kill_unit_setting u)
{
	return u == KILL_UNIT_PROCESS ? "process"
	       : u == KILL_UNIT_CGROUP ? "cgroup"
	       : u == KILL_UNIT_AUTO   ? "auto"
				       : "oom_group";
}

int config_set_scope_key(struct scope_settings *v, const char *key, const char *value)
{
	uint64_t u;
	bool b;

	if (!strcmp(key, "reserve_permille")) {
		if (parse_uint(value, 1, CONFIG_RESERVE_PERMILLE_MAX, &u))
			return -EINVAL;
		v->reserve_permille = (unsigned int)u;
		return SCOPE_KEY_RESERVE;
	}
	if (!strcmp(key, "term_grace_msec")) {
		if (parse_uint(value, 0, CONFIG_TERM_GRACE_MSEC_MAX, &u))
			return -EINVAL;
		v->term_grace_msec = (unsigned int)u;
		return SCOPE_KEY_TERM_GRACE;
	}
	if (!strcmp(key, "kill_cgroup")) { /* yes: kill_unit = cgroup; no: oom_group (no cgroup) */
		if (parse_bool(value, &b))
			return -EINVAL;
		v->kill_unit = b ? KILL_UNIT_CGROUP : KILL_UNIT_OOM_GROUP;
		return SCOPE_KEY_KILL_UNIT;
	}
	if (strcmp(key, "kill_unit"))
		return -ENOENT;
	for (enum kill_unit_setting k = KILL_UNIT_PROCESS; k <= KILL_UNIT_AUTO; k++) {
		if (!strcmp(value, config_kill_unit_name(k))) {
			v->kill_unit = k;
			return SCOPE_KEY_KILL_UNIT;
		}
	}
	return -EINVAL;
}

/*
 * The keys of what a kill does beyond the signal (its unit, a grace, the oomd xattrs) and of
 * the helper's work (hooks, announcements, metrics), and a scope's reserve. Return: 1 when
 * @key is none of them, else 0 or -EINVAL.
 */
static int set_kill_key(struct config *c, const char *key, const char *value)
{
	uint64_t u;
	int r;

	r = config_set_scope_key(&c->per_scope, key, value);
	if (r != -ENOENT)
		return r < 0 ? r : 0;
	if (!strcmp(key, "oomd_xattrs"))
		return parse_bool(value, &c->oomd_xattrs);
	if (!strcmp(key, "pre_kill_hook"))
		return set_command(c->pre_kill_hook, value);
	if (!strcmp(key, "post_kill_hook"))
		return set_command(c->post_kill_hook, value);
	if (!strcmp(key, "pre_kill_veto"))
		return parse_bool(value, &c->pre_kill_veto);
	if (!strcmp(key, "dbus_signal"))
		return parse_bool(value, &c->dbus_signal);
	if (!strcmp(key, "desktop_notify"))
		return parse_bool(value, &c->desktop_notify);
	if (!strcmp(key, "dbus_address"))
		return copy_str(c->dbus_address, sizeof(c->dbus_address), value);
	if (!strcmp(key, "metrics_textfile_dir"))
		return value[0] && value[0] != '/'
			   ? -EINVAL
			   : copy_str(c->metrics_dir, sizeof(c->metrics_dir), value);
	if (!strcmp(key, "pre_kill_wait_msec")) {
		r = parse_uint(value, 0, CONFIG_PRE_KILL_WAIT_MSEC_MAX, &u);
		if (!r)
			c->pre_kill_wait_msec = (unsigned int)u;
		return r;
	}
	if (!strcmp(key, "hook_timeout_msec")) {
		r = parse_uint(value, CONFIG_HOOK_TIMEOUT_MSEC_MIN, CONFIG_HOOK_TIMEOUT_MSEC_MAX, &u);
		if (!r)
			c->hook_timeout_msec = (unsigned int)u;
		return r;
	}
	return 1;
}

/* One more watched cgroup, kept without trailing slashes; one listed already (but as a
 * section's scope) is refused. Return: 0, -EINVAL with the reason in @err. */
static int add_cgroup(struct config *c, const char *name, const char *value, char *err,
		      size_t errsize)
{
	char valid[96];
	char *p;
	size_t len;

	if (c->nr_cgroups >= CONFIG_MAX_CGROUPS) {
		snprintf(err, errsize, "%s: more than %d cgroups", name, CONFIG_MAX_CGROUPS);
		return -EINVAL;
	}
	for (size_t i = 0; i < c->nr_cgroups; i++) {
		if (!config_same_path(c->cgroups[i], value))
			continue;
		if (config_section_path(c, value))
			return 0; /* a section's scope, listed with it: one scope */
		/* watched twice, a verdict of the one cgroup would kill twice */
		snprintf(err, errsize, "%s: %s is listed already (as %s)", name, value,
			 c->cgroups[i]);
		return -EINVAL;
	}
	p = c->cgroups[c->nr_cgroups];
	if (value[0] != '/' || copy_str(p, CONFIG_PATH_MAX, value)) {
		config_valid("cgroup", valid, sizeof(valid));
		snprintf(err, errsize, "bad value '%s' for %s (valid: %s)", value, name, valid);
		return -EINVAL;
	}
	/* without trailing slashes: the scope's directory is compared by prefix */
	len = strlen(p);
	while (len > 1 && p[len - 1] == '/')
		p[--len] = '\0';
	c->nr_cgroups++;
	return 0;
}

int config_set(struct config *c, const char *key, const char *value, char *err, size_t errsize)
{
	return config_set_named(c, key, key, value, err, errsize);
}

int config_set_named(struct config *c, const char *key, const char *name, const char *value,
		     char *err, size_t errsize)
{
	uint64_t u;
	bool b;
	int r = -EINVAL;

	if (!strcmp(key, "interval_msec")) {
		r = parse_uint(value, CONFIG_INTERVAL_MSEC_MIN, CONFIG_INTERVAL_MSEC_MAX, &u);
		if (!r)
			c->interval_msec = (unsigned int)u;
	} else if (!strcmp(key, "cgroup")) {
		return add_cgroup(c, name, value, err, errsize);
	} else if (!strcmp(key, "machine")) {
		r = parse_bool(value, &b);
		if (!r)
			c->machine = b;
	} else if (!strcmp(key, "dry_run")) {
		r = parse_bool(value, &c->dry_run);
	} else if (!strcmp(key, "reap")) {
		r = parse_bool(value, &c->reap);
	} else if (!strcmp(key, "oom_kill_disable")) {
		r = parse_bool(value, &c->oom_kill_disable);
	} else if (!strcmp(key, "realtime")) {
		r = parse_bool(value, &c->realtime);
	} else if (!strcmp(key, "stall_bound_permille")) {
		r = parse_uint(value, 1, CONFIG_STALL_BOUND_PERMILLE_MAX, &u);
		if (!r)
			c->stall_bound_permille = (unsigned int)u;
	} else if (!strcmp(key, "cpu_stall_bound_permille")) {
		r = parse_uint(value, 0, CONFIG_STALL_BOUND_PERMILLE_MAX, &u);
		if (!r)
			c->cpu_stall_bound_permille = (unsigned int)u;
	} else if (!strcmp(key, "refault_min_pages")) {
		r = parse_uint(value, 0, CONFIG_REFAULT_MIN_PAGES_MAX, &u);
		if (!r)
			c->refault_min_pages = u;
	} else if (!strcmp(key, "protect")) {
		if (c->nr_protect >= CONFIG_MAX_PROTECT) {
			snprintf(err, errsize, "%s: more than %d protected names", name,
				 CONFIG_MAX_PROTECT);
			return -EINVAL;
		}
		r = value[0] ? copy_str(c->protect[c->nr_protect], CONFIG_COMM_LEN, value) : -EINVAL;
		if (!r)
			c->nr_protect++;
	} else if (config_rule_key(key) >= 0) {
		if (c->nr_rules >= CONFIG_MAX_RULES) {
			snprintf(err, errsize, "%s: more than %d prefer, avoid and protect rules", name,
				 CONFIG_MAX_RULES);
			return -EINVAL;
		}
		r = add_rule(c, config_rule_key(key), value);
	} else if (!strcmp(key, "log_level")) {
		r = parse_level(value, &c->log_level);
	} else if (!strcmp(key, "root")) {
		r = copy_str(c->root, sizeof(c->root), value);
	} else if ((r = set_kill_key(c, key, value)) <= 0) {
		/* set, or refused */
	} else {
		snprintf(err, errsize, "unknown key '%s'", key);
		return -EINVAL;
	}
	if (r) {
		char valid[96];

		config_valid(key, valid, sizeof(valid));
		snprintf(err, errsize, "bad value '%s' for %s (valid: %s)", value, name, valid);
	}
	return r;
}

/* A key seen in the file: the first line of each (section, key) that takes one value. */
struct seen_key {
	char section[48], key[32]; /* longer ones are refused before they are seen */
	int line;
};

/* the global keys (about 25) and the per-scope ones of every section: room for all */
#define SEEN_KEYS_MAX (32 + CONFIG_MAX_SECTIONS * 5)

struct file_ctx {
	struct config *c;
	char *err;
	size_t errsize;
	char section[CONFIG_LINE_MAX + 1]; /* of the last line: a new one opens when it changes */
	struct seen_key seen[SEEN_KEYS_MAX];
	size_t nr_seen;
};

/* Keys that add to a list (cgroup, protect, the rules) may come again; any other key given
 * twice in one section is refused: a value silently replaced is a setting lost. Return: 0, or
 * -EINVAL with the reason in ctx->err. */
static int check_once(struct file_ctx *ctx, int line, const char *section, const char *key)
{
	struct seen_key *k;

	if (!strcmp(section, "oomguard"))
		section = ""; /* the top of the file and [oomguard] are one section */
	if (!strcmp(key, "cgroup") || !strcmp(key, "protect") || config_rule_key(key) >= 0 ||
	    strlen(section) >= sizeof(k->section) || strlen(key) >= sizeof(k->key))
		return 0;
	for (size_t i = 0; i < ctx->nr_seen; i++) {
		k = &ctx->seen[i];
		if (strcmp(k->section, section) || strcmp(k->key, key))
			continue;
		snprintf(ctx->err, ctx->errsize, "%s given again (line %d): give it once", key,
			 k->line);
		return -EINVAL;
	}
	if (ctx->nr_seen < SEEN_KEYS_MAX) {
		k = &ctx->seen[ctx->nr_seen++];
		snprintf(k->section, sizeof(k->section), "%s", section);
		snprintf(k->key, sizeof(k->key), "%s", key);
		k->line = line;
	}
	return 0;
}

static int config_file_line(void *user, int line, const char *section, const char *name,
			    const char *value)
{
	struct file_ctx *ctx = user;
	bool opened = strcmp(section, ctx->section) != 0;
	int r;

	snprintf(ctx->section, sizeof(ctx->section), "%s", section);
	if (section[0] && strcmp(section, "oomguard"))
		r = config_section_set(ctx->c, section, opened, name, value, ctx->err,
				       ctx->errsize);
	else
		r = config_set(ctx->c, name, value, ctx->err, ctx->errsize);
	return r < 0 || check_once(ctx, line, section, name) < 0 ? 0 : 1;
}

int config_load_text(struct config *c, const char *name, char *text, size_t len, char *err,
		     size_t errsize)
{
	char reason[256] = "";
	struct file_ctx *ctx = calloc(1, sizeof(*ctx));
	int line;

	if (!ctx) {
		snprintf(err, errsize, "%s: %s", name, strerror(ENOMEM));
		return -ENOMEM;
	}
	ctx->c = c;
	ctx->err = reason;
	ctx->errsize = sizeof(reason);
	line = config_parse_text(text, len, config_file_line, ctx, reason, sizeof(reason));
	free(ctx);
	if (line != 0) {
		snprintf(err, errsize, "%s:%d: %s", name, line,
			 reason[0] ? reason : "syntax error");
		return -EINVAL;
	}
	return 0;
}

int config_load_file(struct config *c, const char *path, char *err, size_t errsize)
{
	char *text;
	size_t len;
	int r;

	r = config_read_text(path, &text, &len, err, errsize);
	if (r < 0)
		return r;
	r = config_load_text(c, path, text, len, err, errsize);
	free(text);
	return r;
}

int config_finish(struct config *c, char *err, size_t errsize)
{
	static unsigned int serial;

	c->re_serial = ++serial ? serial : ++serial; /* never 0: an empty cache slot */
	for (size_t i = 0; i < c->nr_rules; i++) {
		struct match_rule *m = &c->rules[i];

		if (m->attr != MATCH_NAME && m->attr != MATCH_CMDLINE)
			continue;
		if (regcomp(&m->re, m->value, REG_EXTENDED | REG_NOSUB)) {
			snprintf(err, errsize,
				 "bad value '%s' for %s (--%s): not a POSIX extended regex",
				 m->value, m->key, regex_option(m->key));
			config_release(c);
			return -EINVAL;
		}
		m->has_re = true;
	}
	return 0;
}

void config_release(struct config *c)
{
	free(c->sections);
	c->sections = NULL;
	c->nr_sections = 0;
	for (size_t i = 0; i < c->nr_rules; i++) {
		if (c->rules[i].has_re)
			regfree(&c->rules[i].re);
		c->rules[i].has_re = false;
	}
}
