#!/usr/bin/env perl
# Prints "FILE:LINE: LITERAL" for each string literal of the C++ sources
# FILE... whose text matches PATTERN (a Perl regex), a literal that spans
# lines (a raw string) on one line, with "\n" for each line break. Each file
# is read whole and cut into comments, string literals (raw ones too),
# characters, numbers (1'000 is no character) and the rest, so that only
# string literals count: a comment may say anything.
# Usage: perl string_literals.pl PATTERN FILE...
use strict;
use warnings;

my $pattern = shift @ARGV;
die "usage: $0 PATTERN FILE...\n" unless defined $pattern && @ARGV;
local $/;  # each file whole
while (my $text = <>) {
  my $line = 1;
  while ($text =~ /\G(?:(\/\/[^\n]*|\/\*.*?\*\/)
                   |((?:u8|[uUL])?R"([^()\\\s]{0,16})\(.*?\)\3"|(?:u8|[uUL])?"(?:[^"\\\n]|\\.)*")
                   |(\d[\w\x27.]*|\x27(?:[^\x27\\\n]|\\.)*\x27|\w+|.))/gsx) {
    my ($token, $literal) = ($&, $2);
    if (defined $literal && $literal =~ /$pattern/) {
      (my $shown = $literal) =~ s/\n/\\n/g;
      print "$ARGV:$line: $shown\n";
    }
    $line += ($token =~ tr/\n//);
  }
}
