#!/bin/sh
# manlint.sh: check man pages in both renderers a user meets, mandoc and
# groff (what man(1) runs): no warning from either, no rendered line wider
# than 80 columns (a table or a display that does not fit), and no quote
# opened inside a quote of its own kind (`.Ql a , Ql b` on one line
# renders as "'a, 'b''": the first macro encloses the second).
# usage: sh tests/manlint.sh page...
set -u
width=80
st=0

# check NAME: read a rendering on standard input; print what is wrong
# with it, prefixed with NAME, and fail if anything is.
check() {
	perl -CS -e '
	    my ($name, $width) = @ARGV;
	    my ($bad, %open) = (0);
	    my %pair = ("\x{2018}" => "\x{2019}", "\x{201c}" => "\x{201d}");
	    my %close = reverse %pair;
	    while (<STDIN>) {
		s/.\x08//g;
		chomp;
		if (length > $width) {
			print "$name: wider than $width: $_\n";
			$bad = 1;
		}
		for my $c (split //) {
			if ($pair{$c}) {
				if ($open{$c}) {
					print "$name: quote in quote: $_\n";
					$bad = 1;
				}
				$open{$c} = 1;
			} elsif ($close{$c}) {
				$open{$close{$c}} = 0;
			}
		}
	    }
	    exit $bad;' "$1" "$width"
}

for f in "$@"; do
	mandoc -Tlint -W warning "$f" || st=1
	mandoc -Tutf8 -Owidth="$width" "$f" | check "$f (mandoc)" || st=1
	w=$(groff -mandoc -Tutf8 -ww -rLL="$width"n -rLT="$width"n -z "$f" 2>&1)
	if [ -n "$w" ]; then
		printf '%s\n' "$w"
		st=1
	fi
	groff -mandoc -Tutf8 -rLL="$width"n -rLT="$width"n -P-cbou "$f" |
	    check "$f (groff)" || st=1
done
exit "$st"
