# mutate.awk: a damaged copy of an lt1 stream, for the torture tests.
# Usage: awk -v seed=N -f mutate.awk FILE.  The header stays; in every
# other line three bytes become characters that matter to the readers.
# With -v seeds=N -v out=PREFIX instead, the copies of seeds 1 to N, the
# same bytes, go to PREFIX1 ... PREFIXN.
function mutate(sd, f,    r, s, k, i) {
	srand(sd)
	if (NR == 0) {		# an empty copy of an empty file
		if (f != "") {
			printf "" >f
			close(f)
		}
		return
	}
	if (f == "")
		print line[1]
	else
		print line[1] >f
	for (r = 2; r <= NR; r++) {
		s = line[r]
		for (k = 0; k < 3; k++) {
			i = int(rand() * length(s)) + 1
			s = substr(s, 1, i - 1) c[int(rand() * n) + 1] substr(s, i + 1)
		}
		if (f == "")
			print s
		else
			print s >f
	}
	if (f != "")
		close(f)
}
BEGIN {
	n = split("\t { \" } , : 1 - . \\ u B E M", c, " ")
	c[++n] = "\n"
}
{ line[NR] = $0 }
END {
	if (seeds == "")
		mutate(seed, "")
	else
		for (sd = 1; sd <= seeds; sd++)
			mutate(sd, out sd)
}
