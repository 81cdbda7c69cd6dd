# perfvtab: a SQLite extension that reads perf.data files.
#   make            build/perfvtab.so
#   make san        build/san/perfvtab.so, the extension under ASan+UBSan
#   make test       unit, SQL and perf-oracle tests, then again under ASan+UBSan
#   make install    the extension, perfsql, the ready queries, the docs and the
#                   man pages under $(DESTDIR)$(PREFIX), PREFIX=/usr by default;
#                   make uninstall removes them
#   make demo       the sqlite3 shell on the bundled example profile
#   make bench      SQL against perf script / perf report on three recordings (ratios)
#   make alloc-sweep every allocation of tests/t_alloc.sh's queries failed in turn
#   make tsan       the extension and tests/tools/threads.c under ThreadSanitizer
#   make fuzz       the libFuzzer targets (tests/fuzz/README.md)

# dlopen() finds "perfvtab.so" by name only in the system library directories
# (/usr/lib, not /usr/local/lib: ldconfig ignores names without "lib").
# The flavour rules below come first in the file; without this, plain `make`
# would build only their first target.
.DEFAULT_GOAL := all

PREFIX ?= /usr
LIBDIR ?= $(PREFIX)/lib
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
DOCDIR ?= $(DATADIR)/doc/perfvtab
SQLDIR = $(DATADIR)/perfvtab/sql
CFLAGS ?= -O2 -g
WARNINGS = -Wall -Wextra -Werror
# Reader headers are included by layer folder ("base/byte_reader.h");
# -iquote keeps them out of the search for <...> headers.
# -fvisibility=hidden: the extension exports only sqlite3_perfvtab_init, so its
# names cannot interpose on (or be interposed by) the application loading it.
# build/gen: C code protoc-c generates from src/render/profile.proto (pprof's
# format), included as <profile.pb-c.h>; -isystem: its warnings are not ours.
BASE_CFLAGS = -std=c11 -D_GNU_SOURCE -fPIC -fvisibility=hidden -iquote src -iquote ext -isystem build/gen $(TRACEEVENT_CFLAGS) $(WARNINGS)
# libtraceevent parses the tracepoint formats of tracing data (src/decode/tracepoint.c).
TRACEEVENT_CFLAGS := $(shell pkg-config --cflags libtraceevent)
TRACEEVENT_LIBS := $(shell pkg-config --libs libtraceevent)
# libdw (libdwfl) unwinds DWARF user stacks (src/unwind/dwarf_unwind.c); libiberty demangles C++;
# a thread decompresses big compressed recordings (src/stream/unpack.c).
# make's default CC is cc; CC=clang, CFLAGS and LDFLAGS work as usual.
# zlib writes perf_pprof's profiles (src/render/pprof_encode.c); protobuf-c's
# code generated from profile.proto reads them back in tests/unit.
# The extension links the reader's libraries; programs (sqlrun, the tools,
# the unit tests) add SQLite and libm.
READER_LIBS = -lzstd -ldw -lelf -liberty $(TRACEEVENT_LIBS) -lprotobuf-c -lz -pthread
PROGRAM_LIBS = -lsqlite3 $(READER_LIBS) -lm
SANITIZE = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# The reader's layers are folders of src/ (docs/architecture.md);
# scripts/check_layers.sh checks that includes only go down.
READER_SRC = $(sort $(wildcard src/*/*.c)) $(GEN_SRC)
EXT_SRC = $(sort $(wildcard ext/*.c))
UNIT_SRC = $(sort $(wildcard tests/unit/*.c))
# Generated at build time, never committed: pprof's profile.proto in C.
PROTOC_C ?= protoc-c
GEN_SRC = build/gen/profile.pb-c.c
build/gen/profile.pb-c.c build/gen/profile.pb-c.h &: src/render/profile.proto
	@mkdir -p build/gen
	$(PROTOC_C) --proto_path=src/render --c_out=build/gen profile.proto
# -MMD -MP: each object depends on the headers it includes (build/**/*.d).
DEPFLAGS = -MMD -MP
FUZZ_HEADERS = $(wildcard tests/fuzz/*.h)

# Every link is this one recipe: the compiler (a variable's name), the
# flags, then the rule's sources, objects and archives in their order
# (headers among the prerequisites only make the target rebuild), then the
# libraries.
link = $($(1)) $(2) $(LDFLAGS) $(filter %.c %.o %.a,$^) -o $@ $(3)
# a program linked with the reader: compiler variable, flavour flags
link_program = $(call link,$(1),$(BASE_CFLAGS) $(2) $(DEPFLAGS),$(PROGRAM_LIBS))
# --exclude-libs: the static archives linked in (libiberty's xmalloc,
# cplus_demangle, ...) are hidden too.  The SONAME is the file's name: a
# shared object in /usr/lib has one (Debian's lintian holds its absence an
# error); SQLite loads it by path or name either way.
SO_FLAGS = -shared -Wl,-soname,perfvtab.so -Wl,--exclude-libs,ALL

# Four flavours build the same sources, each into its folder with its
# compiler and flags, and link the same way: each has its reader library
# (libpvreader.a), extension and programs.  build/ is plain, build/san/
# ASan+UBSan (make san), build/tsan/ ThreadSanitizer (make tsan),
# build/fuzz/ libFuzzer's coverage (make fuzz).
# $(1): folder, $(2): compiler variable, $(3): flags variable.
define flavour
$(1)/reader/%.o: src/%.c | build/gen/profile.pb-c.h
	@mkdir -p $$(dir $$@)
	$$($(2)) $$(BASE_CFLAGS) $$($(3)) $$(DEPFLAGS) -c $$< -o $$@
$(1)/reader/gen/%.o: build/gen/%.c
	@mkdir -p $$(dir $$@)
	$$($(2)) $$(BASE_CFLAGS) $$($(3)) $$(DEPFLAGS) -c $$< -o $$@
$(1)/ext/%.o: ext/%.c
	@mkdir -p $$(dir $$@)
	$$($(2)) $$(BASE_CFLAGS) $$($(3)) $$(DEPFLAGS) -c $$< -o $$@
$(1)/libpvreader.a: $$(patsubst build/gen/%.c,$(1)/reader/gen/%.o,$$(patsubst src/%.c,$(1)/reader/%.o,$$(READER_SRC)))
	@rm -f $$@
	ar rcs $$@ $$^
$(1)/perfvtab.so: $$(patsubst ext/%.c,$(1)/ext/%.o,$$(EXT_SRC)) $(1)/libpvreader.a
	$$(call link,$(2),$$(SO_FLAGS) $$($(3)),$$(READER_LIBS))
$(1)/sqlrun: tests/tools/sqlrun.c $$(patsubst ext/%.c,$(1)/ext/%.o,$$(EXT_SRC)) $(1)/libpvreader.a
	$$(call link_program,$(2),$$($(3)))
# the allocation sweep fails the extension's allocations too: linked with it
$(1)/tools/alloc_sweep: tests/tools/alloc_sweep.c $$(patsubst ext/%.c,$(1)/ext/%.o,$$(EXT_SRC)) $(1)/libpvreader.a
	@mkdir -p $$(dir $$@)
	$$(call link_program,$(2),$$($(3)))
$(1)/twins: tests/tools/twins.c $$(patsubst ext/%.c,$(1)/ext/%.o,$$(EXT_SRC)) $(1)/libpvreader.a
	$$(call link_program,$(2),$$($(3)))
$(1)/unit/%: tests/unit/%.c $(1)/libpvreader.a
	@mkdir -p $$(dir $$@)
	$$(call link_program,$(2),$$($(3)))
$(1)/tools/%: tests/tools/%.c $(1)/libpvreader.a
	@mkdir -p $$(dir $$@)
	$$(call link_program,$(2),$$($(3)))
$(1)/fuzz/replay_reader: tests/fuzz/replay_main.c tests/fuzz/fuzz_reader.c $(1)/libpvreader.a $$(FUZZ_HEADERS)
	@mkdir -p $$(dir $$@)
	$$(call link_program,$(2),$$($(3)))
$(1)/fuzz/replay_sql: tests/fuzz/replay_main.c tests/fuzz/fuzz_sql.c $$(patsubst ext/%.c,$(1)/ext/%.o,$$(EXT_SRC)) $(1)/libpvreader.a $$(FUZZ_HEADERS)
	@mkdir -p $$(dir $$@)
	$$(call link_program,$(2),$$($(3)))
endef

PLAIN_FLAGS = $(CFLAGS)
SAN_FLAGS = $(CFLAGS) $(SANITIZE)
# ThreadSanitizer and libFuzzer need clang.
TSAN_CC ?= clang
TSAN_FLAGS = -O1 -g -fsanitize=thread
FUZZ_CC ?= clang
FUZZ_FLAGS = -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# the fuzz flavour's objects are instrumented for coverage; the targets add
# libFuzzer's main when they link
FUZZ_OBJ_FLAGS = $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link
FUZZ_LINK_FLAGS = $(FUZZ_FLAGS) -fsanitize=fuzzer
$(eval $(call flavour,build,CC,PLAIN_FLAGS))
$(eval $(call flavour,build/san,CC,SAN_FLAGS))
$(eval $(call flavour,build/tsan,TSAN_CC,TSAN_FLAGS))
$(eval $(call flavour,build/fuzz,FUZZ_CC,FUZZ_OBJ_FLAGS))

UNITS = $(patsubst tests/unit/%.c,%,$(UNIT_SRC))
TOOLS = $(patsubst tests/tools/%.c,%,$(filter-out tests/tools/sqlrun.c tests/tools/twins.c,$(wildcard tests/tools/*.c)))

all: build/perfvtab.so

# The ASan+UBSan extension, for programs built with the sanitizers that load
# it (tests/tools/load_sweep.c, load_cycles.c), or any host run with
# LD_PRELOAD=$(shell $(CC) -print-file-name=libasan.so).
san: build/san/perfvtab.so

REPLAYERS = fuzz/replay_reader fuzz/replay_sql

# A build uses every core unless make was given -j: `make test` on a fresh
# machine builds two flavours of everything before the suite starts.
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
endif
plain: build/perfvtab.so build/sqlrun build/twins $(addprefix build/unit/,$(UNITS)) $(addprefix build/tools/,$(TOOLS)) $(addprefix build/,$(REPLAYERS))
sanitized: build/san/perfvtab.so build/san/sqlrun build/san/twins $(addprefix build/san/unit/,$(UNITS)) $(addprefix build/san/tools/,$(TOOLS)) $(addprefix build/san/,$(REPLAYERS))

test: plain sanitized check-layers
	@bash tests/run.sh

# Includes go down the layers only; src/ knows no SQL; ext/ reads no bytes.
check-layers:
	@bash scripts/check_layers.sh

demo: build/perfvtab.so
	@bash scripts/demo.sh

# The man pages are made from docs/*.md (scripts/mkman.py), perfsql's with
# the ready queries its --list prints.
MAN_PAGES = build/man/perfsql.1 build/man/perfvtab.7
build/man/perfsql.1: docs/perfsql.md scripts/mkman.py scripts/perfsql $(wildcard sql/*.sql)
	@mkdir -p $(dir $@)
	python3 scripts/mkman.py $< perfsql 1 "perfsql - run SQL on perf.data files with the perfvtab SQLite extension" \
		--queries scripts/perfsql >$@.tmp && mv $@.tmp $@
build/man/perfvtab.7: docs/schema.md scripts/mkman.py
	@mkdir -p $(dir $@)
	python3 scripts/mkman.py $< perfvtab 7 "perfvtab - SQL tables and functions of Linux perf.data files (a SQLite extension)" \
		>$@.tmp && mv $@.tmp $@
man: $(MAN_PAGES)

# What install puts, and uninstall removes: every file below, and the
# directories of perfvtab's own (SQLDIR, its parent, DOCDIR), not the shared
# ones (bin/, lib/, man1/, ...).  perfsql is told where its queries and the
# extension are relative to BINDIR, so that the tree works under DESTDIR or
# unpacked anywhere.
SQL_FILES = $(sort $(wildcard sql/*.sql))
DOC_FILES = README.md docs/schema.md docs/perfsql.md docs/architecture.md docs/fleet.md
INSTALLED = $(DESTDIR)$(LIBDIR)/perfvtab.so $(DESTDIR)$(BINDIR)/perfsql \
	$(addprefix $(DESTDIR)$(SQLDIR)/,$(notdir $(SQL_FILES))) \
	$(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(DOC_FILES))) \
	$(DESTDIR)$(MANDIR)/man1/perfsql.1 $(DESTDIR)$(MANDIR)/man7/perfvtab.7
install: build/perfvtab.so $(MAN_PAGES)
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(BINDIR) $(DESTDIR)$(SQLDIR) $(DESTDIR)$(DOCDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7
	install -m 644 build/perfvtab.so $(DESTDIR)$(LIBDIR)/perfvtab.so
	sed -e 's|^installed_sqldir=.*|installed_sqldir=$(shell realpath -m --relative-to=$(BINDIR) $(SQLDIR))|' \
	    -e 's|^installed_ext=.*|installed_ext=$(shell realpath -m --relative-to=$(BINDIR) $(LIBDIR))/perfvtab.so|' \
	    -e '1s|^#!/usr/bin/env bash$$|#!/bin/bash|' \
	    scripts/perfsql >build/perfsql.installed
	install -m 755 build/perfsql.installed $(DESTDIR)$(BINDIR)/perfsql
	install -m 644 $(SQL_FILES) $(DESTDIR)$(SQLDIR)
	install -m 644 $(DOC_FILES) $(DESTDIR)$(DOCDIR)
	install -m 644 build/man/perfsql.1 $(DESTDIR)$(MANDIR)/man1/perfsql.1
	install -m 644 build/man/perfvtab.7 $(DESTDIR)$(MANDIR)/man7/perfvtab.7

uninstall:
	rm -f $(INSTALLED)
	-rmdir $(DESTDIR)$(SQLDIR) $(DESTDIR)$(DATADIR)/perfvtab $(DESTDIR)$(DOCDIR)

build/bench/%: bench/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE $(WARNINGS) -O2 $< -o $@ -lzstd

# Every allocation of every query of tests/t_alloc.sh failed in turn (make
# test tries 104 of each), both flavours: about 5 minutes plain.
alloc-sweep: plain sanitized
	@ALLOC_SWEEP=full PV_TESTS=tests/t_alloc.sh bash tests/run.sh

bench: plain build/bench/raw_walk
	@bash bench/run.sh

# libFuzzer targets (tests/fuzz/README.md): the fuzz flavour's reader and
# extension, ASan+UBSan and coverage, built with clang into build/fuzz/.
build/fuzz/fuzz_reader: tests/fuzz/fuzz_reader.c build/fuzz/libpvreader.a $(FUZZ_HEADERS)
	$(call link_program,FUZZ_CC,$(FUZZ_LINK_FLAGS))
build/fuzz/fuzz_sql: tests/fuzz/fuzz_sql.c $(patsubst ext/%.c,build/fuzz/ext/%.o,$(EXT_SRC)) build/fuzz/libpvreader.a $(FUZZ_HEADERS)
	$(call link_program,FUZZ_CC,$(FUZZ_LINK_FLAGS))
fuzz: build/fuzz/fuzz_reader build/fuzz/fuzz_sql

# The program that queries one file from several threads
# (tests/tools/threads.c, run by tests/t_threads.sh) loads the tsan
# flavour's extension.
build/tsan/threads: tests/tools/threads.c
	@mkdir -p $(dir $@)
	$(call link,TSAN_CC,$(BASE_CFLAGS) $(TSAN_FLAGS),-lsqlite3 -lpthread)
tsan: build/tsan/threads build/tsan/perfvtab.so

clean:
	rm -rf build

-include $(shell find build -name '*.d' 2>/dev/null)

.PHONY: alloc-sweep all plain san sanitized test check-layers demo man install uninstall bench clean fuzz tsan
.SECONDARY:
