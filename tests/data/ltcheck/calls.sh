#!/bin/sh
# calls.sh OBJ...: which of the object files OBJ call which others (a
# function or a table one uses that another defines), one line each:
# "caller.o: callee.o ...", callers in an order where every file comes
# before those it calls.  Exit 1, naming the files, if the calls go
# round in a circle; 2 if nm fails.  For ltcheck's model, whose files
# must call one way (pfsim.h).
set -eu
tab=$(printf '\t')
defs=$(mktemp) uses=$(mktemp) edges=$(mktemp) loop=$(mktemp)
trap 'rm -f "$defs" "$uses" "$edges" "$loop"' EXIT
for o in "$@"; do
	n=${o##*/}
	nm -g --defined-only "$o" | awk -v f="$n" 'NF == 3 { print $3 "\t" f }' >> "$defs" || exit 2
	nm -u "$o" | awk -v f="$n" '{ print $NF "\t" f }' >> "$uses" || exit 2
done
# symbol TAB definer, symbol TAB user: join on the symbol
sort -t "$tab" -k1,1 -o "$defs" "$defs"
sort -t "$tab" -k1,1 -o "$uses" "$uses"
join -t "$tab" "$uses" "$defs" | awk -F '\t' '$2 != $3 { print $2, $3 }' |
    sort -u > "$edges"
# every file, each calling itself too, so tsort lists the leaves
for o in "$@"; do
	n=${o##*/}
	echo "$n $n"
done >> "$edges"
if ! order=$(tsort "$edges" 2> "$loop"); then
	echo "calls go round in a circle (each file calls the next):" >&2
	sed -n 's/^tsort: \([^ ]*\.o\)$/  \1/p' "$loop" >&2
	exit 1
fi
for n in $order; do
	printf '%s:' "$n"
	awk -v f="$n" '$1 == f && $2 != f { printf " %s", $2 }' "$edges"
	echo
done
