# litracer: LitData logs and Chrome traces to clean Perfetto traces.
# GNU make.  `make` builds, `make check` tests; see README.md.

PREFIX = /usr/local
BINDIR = $(PREFIX)/bin
MANDIR = $(PREFIX)/share/man

CC = cc
CFLAGS = -O3 -g
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

# Each program and the files it is built from: tools/PROG/ holds all of
# PROG (PROG.c, its private modules, its private header PROG.h); CORE is
# what every program links (common/lt.h); the other common/ modules are
# shared by two programs or more, each with its own header.  PROG.c has
# PROG_main(), which ltchain calls too; common/main-PROG.o, made from
# common/main.c, is the program's main().
CORE = common/alloc.o common/chain.o common/err.o common/esc.o \
	common/in.o common/json.o common/map.o common/num.o common/obj.o \
	common/out.o common/pipe.o common/stream.o
JSONEV = common/jsonev.o
IDTAB = common/idtab.o
JSONW = common/jsonw.o
PB = common/pb.o
STRTAB = common/strtab.o
TALLY = common/tally.o $(STRTAB)
PROGRESS = common/progress.o
COLD = common/cold.o
# objs PROG: the objects of tools/PROG/, one per .c file.
objs = $(patsubst %.c,%.o,$(wildcard tools/$(1)/*.c))
LTPARSE = $(call objs,ltparse) $(CORE) $(JSONEV) $(PROGRESS)
LTPAIR = $(call objs,ltpair) $(CORE) $(IDTAB)
LTFILTER = $(call objs,ltfilter) $(CORE) $(IDTAB)
LTLANEFIX = $(call objs,ltlanefix) $(CORE) $(PROGRESS)
LTJSON = $(call objs,ltjson) $(CORE) $(JSONW) $(TALLY)
LTCHECK = $(call objs,ltcheck) $(CORE) $(JSONEV) $(JSONW) $(PB)
LTSTAT = $(call objs,ltstat) $(CORE) $(IDTAB) $(STRTAB) $(COLD)
LTPROTO = $(call objs,ltproto) $(CORE) $(TALLY) $(PB) $(COLD)
# ltchain: the stages of a chain in one process, each program's code.
LTCHAIN = $(call objs,ltchain) $(sort $(LTPARSE) $(LTPAIR) $(LTFILTER) \
	$(LTLANEFIX) $(LTJSON) $(LTSTAT) $(LTPROTO))

# The programs are built in tools/bin/, with a copy of the driver, so
# that one directory on PATH holds them all.
NAMES = ltparse ltpair ltfilter ltlanefix ltjson ltcheck ltstat ltproto \
	ltchain
CPROGS = $(addprefix tools/bin/,$(NAMES))
SCRIPTS = tools/bin/litracer
PROGS = $(CPROGS) $(SCRIPTS)
MAINS = $(patsubst %,common/main-%.o,$(NAMES))
OBJS = $(sort $(LTPARSE) $(LTPAIR) $(LTFILTER) $(LTLANEFIX) $(LTJSON) \
	$(LTCHECK) $(LTSTAT) $(LTPROTO) $(LTCHAIN)) $(MAINS)
HDR = $(wildcard common/*.h tools/*/*.h)
MAN1 = $(wildcard man/*.1)
MAN5 = $(wildcard man/*.5)
MAN7 = $(wildcard man/*.7)
GENLOG = tests/gen/genlog
GENTRACE = tests/gen/gentrace
RUNSTAT = tests/bench/runstat
SURVIVE = tests/gen/survive
TESTPROGS = $(GENLOG) $(GENTRACE) $(RUNSTAT) $(SURVIVE)
FUZZERS = $(patsubst %.c,%,$(wildcard tests/fuzz/fuzz_*.c))
# The same harnesses built by make check with CC, without libFuzzer
# (tests/fuzz/main.c), from the objects: they must keep compiling.
FUZZRUN = $(patsubst tests/fuzz/%,tests/fuzz/bin/%,$(FUZZERS))

all: $(PROGS)

tools/bin/ltparse: $(LTPARSE)
tools/bin/ltpair: $(LTPAIR)
tools/bin/ltfilter: $(LTFILTER)
tools/bin/ltlanefix: $(LTLANEFIX)
tools/bin/ltjson: $(LTJSON)
tools/bin/ltcheck: $(LTCHECK)
tools/bin/ltstat: $(LTSTAT)
tools/bin/ltproto: $(LTPROTO)
tools/bin/ltchain: $(LTCHAIN)
$(CPROGS): tools/bin/%: common/main-%.o
	@mkdir -p tools/bin
	$(CC) $(LDFLAGS) -o $@ $^
tools/bin/litracer: tools/litracer
	@mkdir -p tools/bin
	cp -f tools/litracer $@
	chmod 755 $@

# Objects are rebuilt whenever the flags change (say for check-asan).
# A program's module sees its own directory's header and the core's.
common/.flags: FORCE
	@f='$(CC) $(LT_CPPFLAGS) $(LT_CFLAGS) $(LDFLAGS)'; \
	echo "$$f" | cmp -s - $@ || echo "$$f" > $@

$(OBJS): $(HDR) common/.flags
.c.o:
	$(CC) $(LT_CPPFLAGS) -I$(@D) $(LT_CFLAGS) -c -o $@ $<
common/main-%.o: common/main.c
	$(CC) $(LT_CPPFLAGS) $(LT_CFLAGS) -DLT_MAIN=$*_main -c -o $@ common/main.c

tests/bench/%: tests/bench/%.c common/.flags
	$(CC) $(LT_CPPFLAGS) $(LT_CFLAGS) $(LDFLAGS) -o $@ $<

tests/gen/%: tests/gen/%.c common/.flags
	$(CC) $(LT_CPPFLAGS) $(LT_CFLAGS) $(LDFLAGS) -o $@ $<

check: all $(TESTPROGS) $(FUZZRUN)
	sh tests/check.sh

# abort_on_error for UBSan too: its findings would exit 1, which the
# torture tests take for "bad data".
check-asan:
	$(MAKE) CFLAGS='$(SANFLAGS)' LDFLAGS='$(SANFLAGS)' all $(TESTPROGS) \
	    $(FUZZRUN)
	ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:abort_on_error=1 \
	sh tests/check.sh; st=$$?; \
	$(MAKE) all $(TESTPROGS) $(FUZZRUN) >/dev/null; exit $$st

# Man pages in mandoc and in groff (man-db's man), then the shell scripts.
lint:
	sh tests/manlint.sh $(MAN1) $(MAN5) $(MAN7)
	@if [ -f tools/litracer ]; then \
		echo shellcheck -s sh tools/litracer; \
		shellcheck -s sh tools/litracer; fi
	shellcheck -s sh .ci/run tests/check.sh tests/bench/*.sh tests/manlint.sh
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

# A harness is built with every module, shared and private, but the
# programs' mains.
FUZZSRC = $(filter-out common/main.c,$(wildcard common/*.c)) $(filter-out $(foreach n,$(NAMES),tools/$(n)/$(n).c),$(wildcard tools/*/*.c))
FUZZINC = $(foreach n,$(NAMES),-Itools/$(n))
tests/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzzfile.h $(FUZZSRC) $(HDR)
	$(FUZZCC) $(LT_CPPFLAGS) $(WARNFLAGS) -g -O1 \
	    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	    $(FUZZINC) -o $@ $< $(FUZZSRC)

FUZZOBJS = $(patsubst %.c,%.o,$(FUZZSRC))
$(FUZZOBJS): $(HDR) common/.flags
tests/fuzz/bin/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/main.c \
    tests/fuzz/fuzzfile.h $(FUZZOBJS) $(HDR) common/.flags
	@mkdir -p tests/fuzz/bin
	$(CC) $(LT_CPPFLAGS) $(FUZZINC) $(LT_CFLAGS) $(LDFLAGS) -o $@ $< \
	    tests/fuzz/main.c $(FUZZOBJS)

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
	rm -f $(PROGS) $(OBJS) common/.flags $(TESTPROGS) \
	    $(FUZZERS)
	rm -rf tools/bin
	rm -f litdata_demo.log litdata_demo_trace.json
	rm -rf tests/fuzz/corpus tests/fuzz/bin

FORCE:

.PHONY: all check check-asan lint bench demo fuzz install uninstall clean FORCE
.DELETE_ON_ERROR:
