# litracer: LitData logs and Chrome traces to clean Perfetto traces.
# GNU make.  `make` builds, `make check` tests; see README.md.

PREFIX = /usr/local
BINDIR = $(PREFIX)/bin
MANDIR = $(PREFIX)/share/man

CC = cc
AR = ar
CFLAGS = -O2 -g
LDFLAGS =
# Always applied, after CFLAGS, so a user's CFLAGS never turn them off.
WARNFLAGS = -std=c99 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wwrite-strings -Wformat=2
WERROR ?=
SANFLAGS = -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=all
FUZZCC = clang
FUZZTIME = 60

LT_CPPFLAGS = -D_POSIX_C_SOURCE=200809L -Icommon
LT_CFLAGS = $(CFLAGS) $(WARNFLAGS) $(if $(filter 1,$(WERROR)),-Werror)

CPROGS = $(patsubst %.c,%,$(wildcard tools/*.c))
SCRIPTS = tools/litracer
PROGS = $(CPROGS) $(wildcard $(SCRIPTS))
LIBSRC = $(wildcard common/*.c)
LIBOBJ = $(LIBSRC:.c=.o)
LIB = common/libcommon.a
HDR = $(wildcard common/*.h)
MAN1 = $(wildcard man/*.1)
MAN5 = $(wildcard man/*.5)
MAN7 = $(wildcard man/*.7)
GENLOG = tests/gen/genlog
RUNSTAT = tests/bench/runstat
GENTRACE = tests/gen/gentrace
TESTPROGS = $(GENLOG) $(GENTRACE) $(RUNSTAT)
FUZZERS = $(patsubst %.c,%,$(wildcard tests/fuzz/fuzz_*.c))

all: $(CPROGS)

# Objects are rebuilt whenever the flags change (say for check-asan).
common/.flags: FORCE
	@f='$(CC) $(LT_CPPFLAGS) $(LT_CFLAGS) $(LDFLAGS)'; \
	echo "$$f" | cmp -s - $@ || echo "$$f" > $@

common/%.o: common/%.c $(HDR) common/.flags
	$(CC) $(LT_CPPFLAGS) $(LT_CFLAGS) -c -o $@ $<

$(LIB): $(LIBOBJ)
	rm -f $@
	$(AR) rcs $@ $(LIBOBJ)

tools/%: tools/%.c $(LIB) $(HDR) common/.flags
	$(CC) $(LT_CPPFLAGS) $(LT_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB)

tests/bench/%: tests/bench/%.c common/.flags
	$(CC) $(LT_CPPFLAGS) $(LT_CFLAGS) $(LDFLAGS) -o $@ $<

tests/gen/%: tests/gen/%.c common/.flags
	$(CC) $(LT_CPPFLAGS) $(LT_CFLAGS) $(LDFLAGS) -o $@ $<

check: all $(TESTPROGS)
	prove -e bats --ext .bats tests/

check-asan:
	$(MAKE) CFLAGS='$(SANFLAGS)' LDFLAGS='$(SANFLAGS)' all $(TESTPROGS)
	ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	prove -e bats --ext .bats tests/; st=$$?; \
	$(MAKE) all $(TESTPROGS) >/dev/null; exit $$st

# Man pages in mandoc and in groff (man-db's man), then the shell scripts.
lint:
	sh tests/manlint.sh $(MAN1) $(MAN5) $(MAN7)
	@if [ -f tools/litracer ]; then \
		echo shellcheck -s sh tools/litracer; \
		shellcheck -s sh tools/litracer; fi
	shellcheck -s sh .ci/run tests/bench/*.sh tests/manlint.sh
	shellcheck -s bash tests/helper.bash

bench: all $(TESTPROGS)
	sh tests/bench/bench.sh

demo: all $(GENLOG)
	sh tests/bench/demo.sh

# libFuzzer harnesses, built with clang; FUZZTIME seconds each.
fuzz: $(FUZZERS)
	@for f in $(FUZZERS); do \
		mkdir -p tests/fuzz/corpus/$${f##*/}; \
		echo "$$f: $(FUZZTIME)s"; \
		$$f -max_total_time=$(FUZZTIME) -timeout=10 \
		    -artifact_prefix=tests/fuzz/corpus/ \
		    tests/fuzz/corpus/$${f##*/} tests/fuzz/seeds || exit 1; \
	done

tests/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzzfile.h $(LIBSRC) $(HDR)
	$(FUZZCC) $(LT_CPPFLAGS) $(WARNFLAGS) -g -O1 \
	    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	    -o $@ $< $(LIBSRC)

install: all
	mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
	    $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man7
	cp -f $(PROGS) $(DESTDIR)$(BINDIR)/
	cd $(DESTDIR)$(BINDIR) && chmod 755 $(notdir $(PROGS))
	cp -f $(MAN1) $(DESTDIR)$(MANDIR)/man1/
	$(if $(MAN5),cp -f $(MAN5) $(DESTDIR)$(MANDIR)/man5/)
	$(if $(MAN7),cp -f $(MAN7) $(DESTDIR)$(MANDIR)/man7/)
	cd $(DESTDIR)$(MANDIR) && chmod 644 \
	    $(addprefix man1/,$(notdir $(MAN1))) \
	    $(addprefix man5/,$(notdir $(MAN5))) \
	    $(addprefix man7/,$(notdir $(MAN7)))
	@[ -n "$(DESTDIR)" ] || case ":$$PATH:" in *:"$(BINDIR)":*) ;; *) \
	    echo "$(BINDIR) is not on your PATH; add it with"; \
	    echo "  export PATH=\"$(BINDIR):\$$PATH\""; esac

uninstall:
	cd $(DESTDIR)$(BINDIR) && rm -f $(notdir $(PROGS))
	cd $(DESTDIR)$(MANDIR) && rm -f \
	    $(addprefix man1/,$(notdir $(MAN1))) \
	    $(addprefix man5/,$(notdir $(MAN5))) \
	    $(addprefix man7/,$(notdir $(MAN7)))

clean:
	rm -f $(CPROGS) $(LIB) $(LIBOBJ) common/.flags $(TESTPROGS) \
	    $(FUZZERS)
	rm -f litdata_demo.log litdata_demo_trace.json
	rm -rf tests/fuzz/corpus

FORCE:

.PHONY: all check check-asan lint bench demo fuzz install uninstall clean FORCE
.DELETE_ON_ERROR:
