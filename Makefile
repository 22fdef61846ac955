# SPDX-License-Identifier: GPL-2.0-only
# oomguard build. `make` builds ./oomguard; `make check` builds the tests under ASan+UBSan and runs
# them; `make run` builds and runs the main job with its defaults. Missing Debian packages are
# installed on the first build (scripts/deps.sh).

CC ?= cc
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
SYSCONFDIR ?= /etc
UNITDIR ?= /lib/systemd/system
DESTDIR ?=

WARN := -Wall -Wextra -Werror -Wshadow -Wconversion -Wstrict-prototypes -Wmissing-prototypes
CFLAGS ?= -O2 -g
BASE_CFLAGS := -std=gnu11 -D_GNU_SOURCE -Isrc $(WARN) -MMD -MP
LDLIBS := -linih -lpthread -lm
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
TEST_LDLIBS := -lcmocka $(LDLIBS)

# ./oomguard is linked statically against musl (Debian's musl-tools): with no shared C library
# mapped, what the daemon keeps resident and locked is its own ~220 KiB file plus the pages it
# touches (glibc's shared text alone costs it ~1.2 MiB, see docs/daemon.md). `make LIBC=glibc`
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

all: oomguard tools

deps: $(DEPS_STAMP)
$(DEPS_STAMP): scripts/deps.sh
	@scripts/deps.sh build
	@mkdir -p $(BUILD) && touch $@

ifeq ($(LIBC),musl)
MUSL_OBJ := $(patsubst %.c,$(BUILD)/musl/%.o,$(LIB_SRC) $(MAIN_SRC))
oomguard: $(MUSL_OBJ)
	musl-gcc $(CFLAGS) -static -o $@ $^ $$($(CC) -print-file-name=libinih.a)
else ifeq ($(LIBC),glibc)
oomguard: $(REL_OBJ) $(BUILD)/rel/$(MAIN_SRC:.c=.o)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
else
$(error LIBC=$(LIBC): must be musl or glibc)
endif

# musl-gcc searches musl's headers only: libinih's one header is linked in beside them.
$(BUILD)/musl/include/ini.h: | $(DEPS_STAMP)
	@mkdir -p $(@D)
	ln -sf /usr/include/ini.h $@

$(BUILD)/musl/%.o: %.c | $(BUILD)/musl/include/ini.h
	@mkdir -p $(@D)
	musl-gcc $(BASE_CFLAGS) -I$(BUILD)/musl/include $(CFLAGS) -c -o $@ $<

$(BUILD)/rel/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/san/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) -O1 -g $(SAN) -DOOMGUARD_DEBUG -c -o $@ $<

$(BUILD)/san/oomguard: $(SAN_OBJ) $(BUILD)/san/$(MAIN_SRC:.c=.o)
	$(CC) $(SAN) -o $@ $^ $(LDLIBS)

$(BUILD)/san/tests/%: $(BUILD)/san/tests/%.o $(SAN_OBJ)
	$(CC) $(SAN) -o $@ $^ $(TEST_LDLIBS)

$(BUILD)/rel/bench/%: $(BUILD)/rel/bench/%.o $(REL_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

tools: $(TOOLS)
$(BUILD)/tools/%: tools/%.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) -O2 -g -o $@ $< $(LDLIBS)

# The test command README gives: every test, quiet on success, one summary line at the end.
check: oomguard $(BUILD)/san/oomguard $(UNIT_BIN) $(ITEST_BIN) $(TOOLS)
	@tests/run.sh

# The main job with its defaults.
run: oomguard
	./oomguard run

bench: oomguard $(BENCH_BIN) $(TOOLS)
	@bench/run.sh

check-vm: oomguard $(TOOLS)
	@tests/vm/run.sh

install: oomguard
	install -D -m 0755 oomguard $(DESTDIR)$(BINDIR)/oomguard
	install -D -m 0644 dist/oomguard.conf $(DESTDIR)$(SYSCONFDIR)/oomguard.conf
	install -D -m 0644 dist/oomguard.service $(DESTDIR)$(UNITDIR)/oomguard.service

format:
	clang-format -i $(shell find src tests tools bench -name '*.[ch]')

clean:
	rm -rf $(BUILD) oomguard

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
