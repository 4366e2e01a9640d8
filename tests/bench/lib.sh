# tests/bench/lib.sh: shared by the benchmark scripts (sourced, POSIX sh).
#
# Each case is reported in wall seconds and in CPU seconds (user + system
# of every process: the figure that stays steady when the machine is
# busy), with the CPU of a cat(1) pipeline that moves the same bytes
# through the same number of processes beside it, and the largest peak
# resident set of one process.

TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
PATH="$TOP/tools/bin:$TOP/tests/gen:$TOP/tests/bench:$PATH"
BENCHDIR=${BENCHDIR:-${TMPDIR:-/tmp}/litracer-bench}
RUNS=${RUNS:-3}
export PATH
mkdir -p "$BENCHDIR"

# catpipe N FILE: the baseline for N tools: cat FILE then N cat stages,
# so the same bytes cross as many pipes and processes.
catpipe() {
	_n=$1
	_c="cat '$2'"
	while [ "$_n" -gt 0 ]; do
		_c="$_c | cat"
		_n=$((_n - 1))
	done
	printf '%s > /dev/null' "$_c"
}

# best CMD: run sh -c CMD RUNS times; sets WALL and CPU (seconds, the
# best of the runs) and RSS (KiB, the largest).  The files named in
# FRESH (a list) are removed and the disk synced before each run,
# untimed: replacing a file of hundreds of MB, and the writeback of the
# last run, would cost the run more system time than its own work.
best() {
	WALL=
	CPU=
	RSS=0
	_i=0
	while [ "$_i" -lt "$RUNS" ]; do
		if [ -n "${FRESH:-}" ]; then
			# shellcheck disable=SC2086 # a list of paths
			rm -f -- $FRESH
			sync
		fi
		runstat -o "$BENCHDIR/runstat" sh -c "$1" || {
			echo "bench: failed: $1" >&2
			return 1
		}
		read -r _w _c _r < "$BENCHDIR/runstat"
		WALL=$(awk -v a="$WALL" -v b="$_w" \
		    'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }')
		CPU=$(awk -v a="$CPU" -v b="$_c" \
		    'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }')
		RSS=$(awk -v a="$RSS" -v b="$_r" \
		    'BEGIN { print (b + 0 > a + 0) ? b : a }')
		_i=$((_i + 1))
	done
}

header() {
	printf '\n%s\n' "$1"
	printf '%-36s %7s %7s %7s %8s %9s %9s\n' case wall cpu 'cat cpu' \
	    'MB/cpu-s' 'lines/s' 'peak MiB'
}

# measure LABEL FILE STAGES CMD: time CMD on FILE beside STAGES cats.
# With PEAKS set, "LABEL<TAB>peak KiB" is added to the file it names;
# with CPUS set, "LABEL<TAB>CPU seconds<TAB>those of the cats".
measure() {
	_bytes=$(wc -c < "$2")
	_lines=$(wc -l < "$2")
	best "$(catpipe "$3" "$2")" || return 1
	_base=$CPU
	best "$4" || return 1
	awk -v l="$1" -v w="$WALL" -v c="$CPU" -v b="$_base" -v n="$_bytes" \
	    -v ln="$_lines" -v r="$RSS" 'BEGIN {
		if (w <= 0) w = 0.001
		if (c <= 0) c = 0.001
		printf "%-36s %7.3f %7.3f %7.3f %8.1f %9.0f %9.1f\n", l, w,
		    c, b, n / 1e6 / c, ln / w, r / 1024
	}'
	[ -z "${PEAKS:-}" ] || printf '%s\t%s\n' "$1" "$RSS" >> "$PEAKS"
	[ -z "${CPUS:-}" ] ||
	    printf '%s\t%s\t%s\n' "$1" "$CPU" "$_base" >> "$CPUS"
}

# gentrace_cached NAME ARG...: path of a trace made once by gentrace ARG...
gentrace_cached() {
	_f="$BENCHDIR/$1"
	shift
	[ -s "$_f" ] || gentrace "$@" > "$_f" || return 1
	printf '%s\n' "$_f"
}

# genlog_cached FORMAT LINES: path of a generated log, made once.
genlog_cached() {
	_f="$BENCHDIR/$1-$2.log"
	[ -s "$_f" ] || genlog -f "$1" -n "$2" > "$_f" || return 1
	printf '%s\n' "$_f"
}
