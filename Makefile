# litracer: LitData logs and Chrome traces to clean Perfetto traces.
# GNU make.  `make` builds, `make check` tests; see README.md.

PREFIX = /usr/local
BINDIR = $(PREFIX)/bin
MANDIR = $(PREFIX)/share/man

CC = cc
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

# Each program and the files it is built from.  CORE is what every
# program shares (common/*.c, declared in common/lt.h); common/PROGRAM/
# holds what one program alone uses, with its private header.
CORE = common/alloc.o common/err.o common/esc.o common/in.o common/json.o \
	common/map.o common/num.o common/obj.o common/out.o common/pipe.o \
	common/stream.o
JSONEV = common/jsonev.o
IDTAB = common/idtab.o
JSONW = common/jsonw.o
LTPARSE = tools/ltparse.o $(CORE) $(JSONEV) common/ltparse/logline.o \
	common/ltparse/legacy.o common/ltparse/logrec.o \
	common/ltparse/jsonrec.o common/ltparse/jsontail.o \
	common/ltparse/jsonids.o common/ltparse/jsonin.o \
	common/ltparse/login.o common/ltparse/parts.o common/ltparse/procs.o \
	common/ltparse/sink.o
LTPAIR = tools/ltpair.o $(CORE) $(IDTAB) common/ltpair/args.o \
	common/ltpair/spans.o
LTFILTER = tools/ltfilter.o $(CORE) $(IDTAB)
LTLANEFIX = tools/ltlanefix.o $(CORE) common/ltlanefix/lanes.o \
	common/ltlanefix/cross.o common/ltlanefix/thr.o common/ltlanefix/ids.o \
	common/ltlanefix/track.o common/ltlanefix/put.o \
	common/ltlanefix/report.o common/ltlanefix/whole.o \
	common/ltlanefix/live.o
TALLY = common/tally.o common/strtab.o
LTJSON = tools/ltjson.o $(CORE) $(JSONW) $(TALLY)
LTCHECK = tools/ltcheck.o $(CORE) $(JSONEV) $(JSONW) common/ltcheck/pfjson.o \
	common/ltcheck/pfsim.o common/ltcheck/pfstack.o \
	common/ltcheck/pfrec.o common/ltcheck/pfsum.o \
	common/ltcheck/pffind.o common/ltcheck/pfnum.o common/ltcheck/pftp.o \
	common/pb.o
LTSTAT = tools/ltstat.o $(CORE) $(IDTAB) common/ltstat/input.o \
	common/ltstat/hist.o common/ltstat/ctr.o common/ltstat/run.o \
	common/ltstat/emit.o common/ltstat/report.o
LTPROTO = tools/ltproto.o $(CORE) $(TALLY) common/pb.o common/ltproto/intern.o \
	common/ltproto/tracks.o common/ltproto/args.o \
	common/ltproto/window.o common/ltproto/roots.o common/ltproto/event.o

CPROGS = tools/ltparse tools/ltpair tools/ltfilter tools/ltlanefix \
	tools/ltjson tools/ltcheck tools/ltstat tools/ltproto
SCRIPTS = tools/litracer
PROGS = $(CPROGS) $(SCRIPTS)
OBJS = $(sort $(LTPARSE) $(LTPAIR) $(LTFILTER) $(LTLANEFIX) $(LTJSON) \
	$(LTCHECK) $(LTSTAT) $(LTPROTO))
HDR = $(wildcard common/*.h common/*/*.h)
MAN1 = $(wildcard man/*.1)
MAN5 = $(wildcard man/*.5)
MAN7 = $(wildcard man/*.7)
GENLOG = tests/gen/genlog
GENTRACE = tests/gen/gentrace
RUNSTAT = tests/bench/runstat
TESTPROGS = $(GENLOG) $(GENTRACE) $(RUNSTAT)
FUZZERS = $(patsubst %.c,%,$(wildcard tests/fuzz/fuzz_*.c))

all: $(CPROGS)

tools/ltparse: $(LTPARSE)
	$(CC) $(LDFLAGS) -o $@ $(LTPARSE)
tools/ltpair: $(LTPAIR)
	$(CC) $(LDFLAGS) -o $@ $(LTPAIR)
tools/ltfilter: $(LTFILTER)
	$(CC) $(LDFLAGS) -o $@ $(LTFILTER)
tools/ltlanefix: $(LTLANEFIX)
	$(CC) $(LDFLAGS) -o $@ $(LTLANEFIX)
tools/ltjson: $(LTJSON)
	$(CC) $(LDFLAGS) -o $@ $(LTJSON)
tools/ltcheck: $(LTCHECK)
	$(CC) $(LDFLAGS) -o $@ $(LTCHECK)
tools/ltstat: $(LTSTAT)
	$(CC) $(LDFLAGS) -o $@ $(LTSTAT)
tools/ltproto: $(LTPROTO)
	$(CC) $(LDFLAGS) -o $@ $(LTPROTO)

# Objects are rebuilt whenever the flags change (say for check-asan).
# A private module sees its own header and the core's.
common/.flags: FORCE
	@f='$(CC) $(LT_CPPFLAGS) $(LT_CFLAGS) $(LDFLAGS)'; \
	echo "$$f" | cmp -s - $@ || echo "$$f" > $@

$(OBJS): $(HDR) common/.flags
tools/%.o: tools/%.c
	$(CC) $(LT_CPPFLAGS) -Icommon/$* $(LT_CFLAGS) -c -o $@ $<
common/%.o: common/%.c
	$(CC) $(LT_CPPFLAGS) -I$(@D) $(LT_CFLAGS) -c -o $@ $<

tests/bench/%: tests/bench/%.c common/.flags
	$(CC) $(LT_CPPFLAGS) $(LT_CFLAGS) $(LDFLAGS) -o $@ $<

tests/gen/%: tests/gen/%.c common/.flags
	$(CC) $(LT_CPPFLAGS) $(LT_CFLAGS) $(LDFLAGS) -o $@ $<

check: all $(TESTPROGS)
	sh tests/check.sh

# abort_on_error for UBSan too: its findings would exit 1, which the
# torture tests take for "bad data".
check-asan:
	$(MAKE) CFLAGS='$(SANFLAGS)' LDFLAGS='$(SANFLAGS)' all $(TESTPROGS)
	ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:abort_on_error=1 \
	sh tests/check.sh; st=$$?; \
	$(MAKE) all $(TESTPROGS) >/dev/null; exit $$st

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

# A harness is built with every module of common/, core and private.
FUZZSRC = $(wildcard common/*.c common/*/*.c)
FUZZINC = $(patsubst %/,-I%,$(wildcard common/*/))
tests/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzzfile.h $(FUZZSRC) $(HDR)
	$(FUZZCC) $(LT_CPPFLAGS) $(WARNFLAGS) -g -O1 \
	    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	    $(FUZZINC) -o $@ $< $(FUZZSRC)

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
	rm -f $(CPROGS) $(OBJS) common/.flags $(TESTPROGS) \
	    $(FUZZERS)
	rm -f litdata_demo.log litdata_demo_trace.json
	rm -rf tests/fuzz/corpus

FORCE:

.PHONY: all check check-asan lint bench demo fuzz install uninstall clean FORCE
.DELETE_ON_ERROR:
