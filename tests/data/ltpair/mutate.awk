# mutate.awk: a damaged copy of an lt1 stream, for the torture tests.
# Usage: awk -v seed=N -f mutate.awk FILE.  The header stays; in every
# other line three bytes become characters that matter to the readers.
BEGIN {
	srand(seed)
	n = split("\t { \" } , : 1 - . \\ u B E M", c, " ")
	c[++n] = "\n"
}
NR == 1 { print; next }
{
	s = $0
	for (k = 0; k < 3; k++) {
		i = int(rand() * length(s)) + 1
		s = substr(s, 1, i - 1) c[int(rand() * n) + 1] substr(s, i + 1)
	}
	print s
}
