// SPDX-License-Identifier: GPL-2.0-only
/* Per-scope settings: the file's [scope NAME] sections, and what each scope resolves to (the
 * global keys, then its section's). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/config.h"

#define SECTION_PREFIX "scope "

/* The per-scope keys and the bit each sets (kill_cgroup is kill_unit's yes/no form). */
static const struct {
	const char *key;
	enum scope_key bit;
} scope_keys[] = {
    {"reserve_permille", SCOPE_KEY_RESERVE},
    {"term_grace_msec", SCOPE_KEY_TERM_GRACE},
    {"kill_unit", SCOPE_KEY_KILL_UNIT},
    {"kill_cgroup", SCOPE_KEY_KILL_UNIT},
};

#define SCOPE_KEY_LIST "reserve_permille, term_grace_msec, kill_unit, kill_cgroup"

/* A section's NAME: 1 to 40 letters, digits, '.', '_', '-', '@'. */
static bool valid_name(const char *name)
{
	size_t len = strlen(name);

	if (!len || len >= CONFIG_SECTION_NAME_MAX)
		return false;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("._-@", *p)))
			return false;
	return true;
}

bool config_same_path(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	while (la > 1 && a[la - 1] == '/')
		la--;
	while (lb > 1 && b[lb - 1] == '/')
		lb--;
	return la == lb && !strncmp(a, b, la);
}

bool config_section_path(const struct config *c, const char *path)
{
	for (size_t i = 0; i < c->nr_sections; i++)
		if (!c->sections[i].machine && config_same_path(c->sections[i].path, path))
			return true;
	return false;
}

static const struct scope_section *find_scope(const struct config *c, const char *path)
{
	for (size_t i = 0; i < c->nr_sections; i++) {
		const struct scope_section *sec = &c->sections[i];

		if (path ? !sec->machine && config_same_path(sec->path, path) : sec->machine)
			return sec;
	}
	return NULL;
}

/* The first key of section @sec: the scope it names, watched as the same key at the top is. */
static int name_scope(struct config *c, struct scope_section *sec, const char *key,
		      const char *value, char *err, size_t errsize)
{
	const struct scope_section *other;
	bool machine = !strcmp(key, "machine"), listed = false;
	int r;

	if (!machine && strcmp(key, "cgroup")) {
		snprintf(err, errsize,
			 "[scope %s]: its first key names its scope (cgroup = PATH or machine = "
			 "yes), not '%s'",
			 sec->name, key);
		return -EINVAL;
	}
	if (machine && strcmp(value, "yes") && strcmp(value, "true") && strcmp(value, "1") &&
	    strcmp(value, "on")) {
		snprintf(err, errsize, "[scope %s]: machine = %s names no scope (valid: yes)",
			 sec->name, value);
		return -EINVAL;
	}
	other = find_scope(c, machine ? NULL : value);
	if (other) {
		snprintf(err, errsize, "[scope %s]: %s is named by [scope %s] already", sec->name,
			 machine ? "the machine" : value, other->name);
		return -EINVAL;
	}
	sec->machine = machine;
	/* a cgroup line at the top */
	for (size_t i = 0; !machine && i < c->nr_cgroups; i++)
		listed = listed || config_same_path(c->cgroups[i], value);
	/* The path checked and the scope watched, as the same key at the top does. */
	r = listed ? 0 : config_set(c, key, value, err, errsize);
	if (r < 0)
		return r;
	snprintf(sec->path, sizeof(sec->path), "%s", machine ? "" : value);
	return 0;
}

int config_section_set(struct config *c, const char *section, bool opened, const char *key,
		       const char *value, char *err, size_t errsize)
{
	const char *name = section + strlen(SECTION_PREFIX);
	struct scope_section *sec;
	char valid[96];
	int r;

	if (strncmp(section, SECTION_PREFIX, strlen(SECTION_PREFIX)) || !valid_name(name)) {
		snprintf(err, errsize,
			 "unknown section [%s] (valid: [oomguard], [scope NAME], NAME at most 40 "
			 "letters, digits, '.', '_', '-', '@')",
			 section);
		return -EINVAL;
	}
	if (opened) {
		for (size_t i = 0; i < c->nr_sections; i++) {
			if (!strcmp(c->sections[i].name, name)) {
				snprintf(err, errsize, "section [scope %s] given twice", name);
				return -EINVAL;
			}
		}
		if (c->nr_sections >= CONFIG_MAX_SECTIONS) {
			snprintf(err, errsize, "more than %d [scope] sections",
				 CONFIG_MAX_SECTIONS);
			return -EINVAL;
		}
		sec = realloc(c->sections, (c->nr_sections + 1) * sizeof(*sec));
		if (!sec) {
			snprintf(err, errsize, "[scope %s]: out of memory", name);
			return -ENOMEM;
		}
		c->sections = sec;
		sec = &c->sections[c->nr_sections];
		memset(sec, 0, sizeof(*sec));
		snprintf(sec->name, sizeof(sec->name), "%s", name);
		r = name_scope(c, sec, key, value, err, errsize);
		if (!r)
			c->nr_sections++;
		return r;
	}
	sec = &c->sections[c->nr_sections - 1];
	if (!strcmp(key, "cgroup") || !strcmp(key, "machine")) {
		snprintf(err, errsize,
			 "[scope %s]: %s: a section names its scope once, in its "
			 "first key",
			 name, key);
		return -EINVAL;
	}
	r = config_set_scope_key(&sec->val, key, value);
	if (r == -ENOENT) {
		snprintf(err, errsize,
			 "[scope %s]: '%s' is no per-scope key (those: " SCOPE_KEY_LIST ")", name,
			 key);
		return -EINVAL;
	}
	if (r < 0) {
		config_valid(key, valid, sizeof(valid));
		snprintf(err, errsize, "bad value '%s' for %s in [scope %s] (valid: %s)", value,
			 key, name, valid);
		return -EINVAL;
	}
	sec->set |= 1u << r;
	return 0;
}

void config_clear_scoped(struct config *c, const char *key)
{
	for (size_t k = 0; k < sizeof(scope_keys) / sizeof(scope_keys[0]); k++) {
		if (strcmp(key, scope_keys[k].key))
			continue;
		for (size_t i = 0; i < c->nr_sections; i++)
			c->sections[i].set &= ~(1u << scope_keys[k].bit);
	}
}

const struct scope_section *config_scope_settings(const struct config *c, const char *path,
						  struct scope_settings *ret)
{
	const struct scope_section *sec = find_scope(c, path);

	*ret = c->per_scope;
	if (!sec)
		return NULL;
	if (sec->set & (1u << SCOPE_KEY_RESERVE))
		ret->reserve_permille = sec->val.reserve_permille;
	if (sec->set & (1u << SCOPE_KEY_TERM_GRACE))
		ret->term_grace_msec = sec->val.term_grace_msec;
	if (sec->set & (1u << SCOPE_KEY_KILL_UNIT))
		ret->kill_unit = sec->val.kill_unit;
	return sec;
}
