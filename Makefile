# perfvtab: a SQLite extension that reads perf.data files.
#   make            build/perfvtab.so
#   make test       unit, SQL and perf-oracle tests, then again under ASan+UBSan
#   make install    $(DESTDIR)$(PREFIX)/lib/perfvtab.so, PREFIX=/usr by default
#   make demo       the sqlite3 shell on the bundled example profile
#   make bench      SQL against perf script / perf report on a big recording (ratios)

# dlopen() finds "perfvtab.so" by name only in the system library directories
# (/usr/lib, not /usr/local/lib: ldconfig ignores names without "lib").
PREFIX ?= /usr
LIBDIR ?= $(PREFIX)/lib
CC ?= cc
CFLAGS ?= -O2 -g
WARNINGS = -Wall -Wextra -Werror
# -iquote: src/features.h must not shadow glibc's <features.h>.
BASE_CFLAGS = -std=c11 -D_GNU_SOURCE -fPIC -iquote src -iquote ext $(TRACEEVENT_CFLAGS) $(WARNINGS)
# libtraceevent parses the tracepoint formats of tracing data (src/tracepoint.c).
TRACEEVENT_CFLAGS := $(shell pkg-config --cflags libtraceevent)
TRACEEVENT_LIBS := $(shell pkg-config --libs libtraceevent)
# libdw (libdwfl) unwinds DWARF user stacks (src/dwarf_unwind.c); libiberty demangles C++.
LIBS = -lsqlite3 -lzstd -ldw -lelf -liberty $(TRACEEVENT_LIBS)
SANITIZE = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

READER_SRC = $(sort $(wildcard src/*.c))
EXT_SRC = $(sort $(wildcard ext/*.c))
UNIT_SRC = $(sort $(wildcard tests/unit/*.c))
HEADERS = $(wildcard src/*.h ext/*.h)

# Two flavours share the same sources: build/ (plain) and build/san/ (sanitizers).
define flavour
$(1)/reader/%.o: src/%.c $$(HEADERS)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(BASE_CFLAGS) $$(CFLAGS) $(2) -c $$< -o $$@
$(1)/ext/%.o: ext/%.c $$(HEADERS)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(BASE_CFLAGS) $$(CFLAGS) $(2) -c $$< -o $$@
$(1)/libpvreader.a: $$(patsubst src/%.c,$(1)/reader/%.o,$$(READER_SRC))
	@rm -f $$@
	ar rcs $$@ $$^
$(1)/sqlrun: tests/tools/sqlrun.c $$(patsubst ext/%.c,$(1)/ext/%.o,$$(EXT_SRC)) $(1)/libpvreader.a
	$$(CC) $$(BASE_CFLAGS) $$(CFLAGS) $(2) $$^ -o $$@ $$(LIBS)
$(1)/unit/%: tests/unit/%.c $(1)/libpvreader.a
	@mkdir -p $$(dir $$@)
	$$(CC) $$(BASE_CFLAGS) $$(CFLAGS) $(2) $$^ -o $$@ $$(LIBS)
$(1)/tools/%: tests/tools/%.c $(1)/libpvreader.a
	@mkdir -p $$(dir $$@)
	$$(CC) $$(BASE_CFLAGS) $$(CFLAGS) $(2) $$^ -o $$@ $$(LIBS)
endef

$(eval $(call flavour,build,))
$(eval $(call flavour,build/san,$(SANITIZE)))

UNITS = $(patsubst tests/unit/%.c,%,$(UNIT_SRC))
TOOLS = $(patsubst tests/tools/%.c,%,$(filter-out tests/tools/sqlrun.c,$(wildcard tests/tools/*.c)))

all: build/perfvtab.so

build/perfvtab.so: $(patsubst ext/%.c,build/ext/%.o,$(EXT_SRC)) build/libpvreader.a
	$(CC) -shared $(CFLAGS) $^ -o $@ -lzstd -ldw -lelf -liberty $(TRACEEVENT_LIBS)

plain: build/perfvtab.so build/sqlrun $(addprefix build/unit/,$(UNITS)) $(addprefix build/tools/,$(TOOLS))
sanitized: build/san/sqlrun $(addprefix build/san/unit/,$(UNITS)) $(addprefix build/san/tools/,$(TOOLS))

test: plain sanitized
	@bash tests/run.sh

demo: build/perfvtab.so
	@bash scripts/demo.sh

install: build/perfvtab.so
	install -d $(DESTDIR)$(LIBDIR)
	install -m 644 build/perfvtab.so $(DESTDIR)$(LIBDIR)/perfvtab.so

build/bench/%: bench/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE $(WARNINGS) -O2 $< -o $@ -lzstd

bench: plain build/bench/raw_walk build/bench/make_variants
	@bash bench/run.sh

clean:
	rm -rf build

.PHONY: all plain sanitized test demo install bench clean
.SECONDARY:
