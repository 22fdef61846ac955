# SPDX-License-Identifier: GPL-2.0-only
# oomguard build. `make` builds ./oomguard; `make check` builds the tests under ASan+UBSan and runs
# them; `make run` builds and runs the main job with its defaults. Missing Debian packages are
# installed on the first build (scripts/deps.sh).

CC ?= cc
# Where `make install` puts things (DESTDIR prefixed to each). The daemon is an administrator's
# command (section 8): sbin. The unit is written from dist/oomguard.service.in with SBINDIR and
# SYSCONFDIR in it. debian/rules installs with PREFIX=/usr.
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
SYSCONFDIR ?= /etc
UNITDIR ?= /lib/systemd/system
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/oomguard
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
DESTDIR ?=

WARN := -Wall -Wextra -Werror -Wshadow -Wconversion -Wstrict-prototypes -Wmissing-prototypes
CFLAGS ?= -O2 -g
BASE_CFLAGS := -std=gnu11 -D_GNU_SOURCE -Isrc $(WARN) -MMD -MP
LDLIBS := -lpthread -lm
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
TEST_LDLIBS := -lcmocka $(LDLIBS)

# ./oomguard is linked statically against musl (Debian's musl-tools): with no shared C library
# mapped, what the daemon keeps resident and locked is its own ~220 KiB file plus the pages it
# touches (glibc's shared text alone costs it ~1.2 MiB, see docs/daemon-design.md). `make LIBC=glibc`
# links it dynamically against glibc instead. Tests and benchmarks link glibc (ASan needs it).
LIBC ?= musl

BUILD := build
LIB_SRC := $(sort $(wildcard src/policy/*.c src/sim/*.c src/linux/*.c src/daemon/*.c) \
	$(filter-out src/cli/main.c,$(wildcard src/cli/*.c)))
MAIN_SRC := src/cli/main.c
TOOL_SRC := $(wildcard tools/*.c)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
ITEST_SRC := $(wildcard tests/integration/test_*.c)
BENCH_SRC := $(wildcard bench/bench_*.c)

REL_OBJ := $(patsubst %.c,$(BUILD)/rel/%.o,$(LIB_SRC))
SAN_OBJ := $(patsubst %.c,$(BUILD)/san/%.o,$(LIB_SRC))
TOOLS := $(patsubst tools/%.c,$(BUILD)/tools/%,$(TOOL_SRC))
UNIT_BIN := $(patsubst %.c,$(BUILD)/san/%,$(UNIT_SRC))
ITEST_BIN := $(patsubst %.c,$(BUILD)/san/%,$(ITEST_SRC))
BENCH_BIN := $(patsubst %.c,$(BUILD)/rel/%,$(BENCH_SRC))
DEPS_STAMP := $(BUILD)/.deps-ok

.PHONY: all check run bench check-vm install clean format deps tools
# Keep objects of test and bench programs: they are not throwaway intermediates.
.SECONDARY:

all: oomguard tools $(BUILD)/oomguard.service

# The unit with this build's paths. Written every time, replaced only when it differs: a PREFIX
# given on the command line takes effect, and what did not change keeps its time.
UNIT_SUBST := s|@SBINDIR@|$(SBINDIR)|g; s|@SYSCONFDIR@|$(SYSCONFDIR)|g
.PHONY: FORCE
$(BUILD)/oomguard.service: dist/oomguard.service.in FORCE
	@mkdir -p $(@D)
	@sed '$(UNIT_SUBST)' $< >$@.tmp
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; fi

deps: $(DEPS_STAMP)
# SKIP_DEPS=1: the packages are there already (debian/control's Build-Depends).
$(DEPS_STAMP): scripts/deps.sh
	@$(if $(SKIP_DEPS),true,scripts/deps.sh build)
	@mkdir -p $(BUILD) && touch $@

ifeq ($(LIBC),musl)
MUSL_OBJ := $(patsubst %.c,$(BUILD)/musl/%.o,$(LIB_SRC) $(MAIN_SRC))
oomguard: $(MUSL_OBJ)
	musl-gcc $(CFLAGS) $(LDFLAGS) -static -o $@ $^
else ifeq ($(LIBC),glibc)
oomguard: $(REL_OBJ) $(BUILD)/rel/$(MAIN_SRC:.c=.o)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
else
$(error LIBC=$(LIBC): must be musl or glibc)
endif

$(BUILD)/musl/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	musl-gcc $(BASE_CFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/rel/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/san/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) -O1 -g $(SAN) -DOOMGUARD_DEBUG -c -o $@ $<

$(BUILD)/san/oomguard: $(SAN_OBJ) $(BUILD)/san/$(MAIN_SRC:.c=.o)
	$(CC) $(SAN) -o $@ $^ $(LDLIBS)

# The policy tests link the policy objects alone (and cmocka): proof that the core needs nothing
# else. Make takes this rule over the next one for them (the shorter stem wins).
POLICY_SAN_OBJ := $(filter $(BUILD)/san/src/policy/%,$(SAN_OBJ))
$(BUILD)/san/tests/unit/test_policy_%: $(BUILD)/san/tests/unit/test_policy_%.o $(POLICY_SAN_OBJ)
	$(CC) $(SAN) -o $@ $^ -lcmocka

$(BUILD)/san/tests/%: $(BUILD)/san/tests/%.o $(SAN_OBJ)
	$(CC) $(SAN) -o $@ $^ $(TEST_LDLIBS)

$(BUILD)/rel/bench/%: $(BUILD)/rel/bench/%.o $(REL_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

tools: $(TOOLS)
$(BUILD)/tools/%: tools/%.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) -O2 -g -o $@ $< $(LDLIBS)

# The test command README gives: every test, quiet on success, one summary line at the end.
# `make check T=PATTERN` runs only the tests whose path contains PATTERN (tests/run.sh PATTERN)
# and builds only what they need: their cmocka programs; for a shell test, what it names:
# $OOMGUARD_BIN (build/san/oomguard; tests/lib/daemon.sh runs it) and $OOMGUARD_TOOLS (the
# tools; $OG_TOOLS in tests/lib/daemon.sh); $OOMGUARD_SHIPPED_BIN (./oomguard, for a test too
# slow under the sanitizers); for a test that tests/run.sh runs again against the shipped
# binary (as "TEST (shipped)", matched as "TEST shipped"; CHECK_SHIPPED lists what tests/run.sh
# lists), ./oomguard.
CHECK_SHIPPED := tests/cli/usage.sh tests/cli/daemon_run.sh tests/sim/golden.sh \
	tests/integration/daemon_flood.sh tests/integration/daemon_frozen.sh \
	tests/integration/daemon_notify.sh
SHELL_TESTS := $(wildcard tests/cli/*.sh tests/sim/*.sh tests/integration/*.sh)
containing = $(strip $(foreach x,$(2),$(if $(findstring $(1),$(x)),$(x))))
naming = $(if $(2),$(shell grep -l -e '$(1)' $(2)))
ifeq ($(T),)
CHECK_NEEDS := oomguard $(BUILD)/san/oomguard $(UNIT_BIN) $(ITEST_BIN) $(TOOLS) \
	$(BUILD)/oomguard.service
else
T_SHELL := $(call containing,$(T),$(SHELL_TESTS))
T_SHIPPED := $(strip $(foreach t,$(CHECK_SHIPPED),$(if $(findstring $(T),$(t) shipped),$(t))))
CHECK_NEEDS := $(call containing,$(T),$(UNIT_BIN) $(ITEST_BIN)) \
	$(if $(call naming,OOMGUARD_BIN\|tests/lib/daemon.sh,$(T_SHELL)),$(BUILD)/san/oomguard) \
	$(if $(T_SHIPPED)$(call naming,OOMGUARD_SHIPPED_BIN,$(T_SHELL)),oomguard) \
	$(if $(call naming,OOMGUARD_TOOLS\|OG_TOOLS,$(sort $(T_SHELL) $(T_SHIPPED))),$(TOOLS)) \
	$(if $(call naming,build/oomguard.service,$(T_SHELL)),$(BUILD)/oomguard.service) \
	$(if $(call naming,make -s install,$(T_SHELL)),oomguard)
endif
check: $(CHECK_NEEDS)
	@tests/run.sh $(if $(T),'$(T)')

# The main job with its defaults.
run: oomguard
	./oomguard run

bench: oomguard $(BENCH_BIN) $(TOOLS)
	@bench/run.sh
	@bench/thrash-grid.sh

check-vm: oomguard $(TOOLS)
	@tests/vm/run.sh

# The machine bench, not part of `make check` (bench/machine/README.md): a Debian guest with
# systemd as PID 1 under qemu TCG, oomguard and each contender enabled alone in it, against
# machine-wide scenarios; builds the guest image when it is missing (build/machine/), runs every
# cell, writes docs/bench-machine.md. `make bench-machine MB_ARGS=--quick` passes options on.
.PHONY: bench-machine
bench-machine: oomguard
	@bench/machine/run.sh $(MB_ARGS)

# The soak, not part of `make check` (bench/soak.sh; root, cgroup v1 memory and blkio): one
# ./oomguard, started once, through floods and thrashes in v1 groups for SOAK_SECONDS (3600).
.PHONY: soak
soak: oomguard $(TOOLS)
	@bench/soak.sh

# Fuzzing, not part of `make check` (tests/fuzz/README.md): `make fuzz FUZZ_SECONDS=N` builds a
# libFuzzer harness per parser of kernel text with clang (-fsanitize=fuzzer,address,undefined),
# runs each for N seconds on its seeds and prints the executions of each and in total.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_LIB_OBJ := $(patsubst %.c,$(BUILD)/fuzz/%.o,src/linux/parse.c src/linux/procfs.c \
	src/linux/procpid.c src/linux/zoneinfo.c src/linux/cgroupfs.c src/linux/sys.c \
	src/daemon/config.c src/daemon/config_file.c src/daemon/config_scope.c \
	src/daemon/regex_cost.c)
FUZZ_BIN := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))

.PHONY: fuzz
fuzz: $(FUZZ_BIN)
	@tests/fuzz/gen_corpus.sh $(BUILD)/fuzz/gen
	@tests/fuzz/run.sh $(FUZZ_SECONDS) $(BUILD)/fuzz $(FUZZ_BIN)

$(BUILD)/.deps-fuzz-ok: scripts/deps.sh
	@scripts/deps.sh fuzz
	@mkdir -p $(BUILD) && touch $@

$(BUILD)/fuzz/src/%.o: src/%.c | $(BUILD)/.deps-fuzz-ok
	@mkdir -p $(@D)
	$(FUZZ_CC) $(BASE_CFLAGS) -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link -c -o $@ $<

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB_OBJ) | $(BUILD)/.deps-fuzz-ok
	$(FUZZ_CC) $(BASE_CFLAGS) -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB_OBJ)

# The configuration is an administrator's: one already there is never overwritten (the shipped
# one goes beside it as oomguard.conf.new when they differ). `make uninstall` removes what
# `make install` put, and the configuration only when it is still the shipped one.
CONF := $(DESTDIR)$(SYSCONFDIR)/oomguard.conf
install: oomguard
	install -D -m 0755 oomguard $(DESTDIR)$(SBINDIR)/oomguard
	@if [ ! -e $(CONF) ]; then \
		echo "install -D -m 0644 dist/oomguard.conf $(CONF)"; \
		install -D -m 0644 dist/oomguard.conf $(CONF); \
	elif ! cmp -s dist/oomguard.conf $(CONF); then \
		echo "$(CONF) kept as it is; the shipped one is $(CONF).new"; \
		install -m 0644 dist/oomguard.conf $(CONF).new; \
	fi
	install -d $(DESTDIR)$(UNITDIR)
	sed '$(UNIT_SUBST)' dist/oomguard.service.in >$(DESTDIR)$(UNITDIR)/oomguard.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/oomguard.service
	install -D -m 0644 man/oomguard.8 $(DESTDIR)$(MANDIR)/man8/oomguard.8
	install -D -m 0644 man/oomguard.conf.5 $(DESTDIR)$(MANDIR)/man5/oomguard.conf.5
	install -D -m 0644 dist/oomguard.bash-completion $(DESTDIR)$(BASHCOMPDIR)/oomguard
	install -D -m 0644 docs/daemon.md $(DESTDIR)$(DOCDIR)/daemon.md

uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/oomguard $(DESTDIR)$(UNITDIR)/oomguard.service \
		$(DESTDIR)$(MANDIR)/man8/oomguard.8 $(DESTDIR)$(MANDIR)/man5/oomguard.conf.5 \
		$(DESTDIR)$(BASHCOMPDIR)/oomguard $(DESTDIR)$(DOCDIR)/daemon.md $(CONF).new
	-rmdir $(DESTDIR)$(DOCDIR) 2>/dev/null
	@if cmp -s dist/oomguard.conf $(CONF); then \
		echo "rm -f $(CONF)"; rm -f $(CONF); \
	elif [ -e $(CONF) ]; then \
		echo "$(CONF) kept: it differs from the shipped one"; \
	fi

# The Debian package (debian/): dpkg-buildpackage, then lintian on it. Not part of `make check`
# (a clean build from scratch, about a minute); the .deb and its lintian report go to $(BUILD)/deb.
.PHONY: deb uninstall
deb:
	@scripts/deps.sh deb
	@scripts/deb.sh $(BUILD)/deb

format:
	clang-format -i $(shell find src tests tools bench -name '*.[ch]')

clean:
	rm -rf $(BUILD) oomguard

# build/machine holds the guest's Debian tree (bench/machine/image.sh): not searched.
-include $(shell find $(BUILD) -path $(BUILD)/machine -prune -o -name '*.d' -type f -print \
	2>/dev/null)
