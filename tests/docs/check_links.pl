#!/usr/bin/perl
# SPDX-License-Identifier: GPL-3.0-or-later
# check_links.pl FILE.md...: every relative link and image of each Markdown file leads somewhere:
# the file or directory exists, and a #fragment names a heading of the Markdown file it points
# into (GitHub's anchors: lower case, punctuation dropped, spaces as hyphens, -1, -2 for
# repeats) or an <a id>/<a name> in it. Links in code are not links; web links are not checked
# (the tests run offline). Prints each broken link as FILE:LINE and exits 1 if there was one.
use strict;
use warnings;
use open qw(:std :encoding(UTF-8));

my %anchors;    # file => { anchor => 1 }

sub read_lines {
  my ($file) = @_;
  open(my $fh, '<', $file) or return;
  my @lines = <$fh>;
  close $fh;
  return @lines;
}

# The lines outside fenced code blocks, with inline code blanked, by line number.
sub prose {
  my @lines = @_;
  my ($fence, @out) = ('');
  for my $line (@lines) {
    if ($fence eq '' && $line =~ /^\s*(```+|~~~+)/) {
      $fence = substr($1, 0, 3);
      push @out, '';
      next;
    }
    if ($fence ne '') {
      $fence = '' if $line =~ /^\s*\Q$fence\E/;
      push @out, '';
      next;
    }
    (my $text = $line) =~ s/(`+)(?:(?!\1).)+\1/ /g;
    push @out, $text;
  }
  return @out;
}

sub slug {
  my ($heading) = @_;
  $heading =~ s/\[([^\]]*)\]\([^)]*\)/$1/g;    # a link's text
  $heading =~ s/<[^>]+>//g;                     # HTML tags
  $heading = lc $heading;
  $heading =~ s/[^\p{L}\p{M}\p{N}\p{Pc} \-]//g;
  $heading =~ s/ /-/g;
  return $heading;
}

sub anchors_of {
  my ($file) = @_;
  return $anchors{$file} if $anchors{$file};
  my (%seen, %set);
  my $fence = 0;
  for my $line (read_lines($file)) {
    if ($line =~ /^\s*(```|~~~)/) { $fence = !$fence; next; }
    next if $fence;
    while ($line =~ /<a\s+(?:id|name)\s*=\s*"([^"]+)"/g) { $set{$1} = 1; }
    next unless $line =~ /^#{1,6}\s+(.*?)\s*#*\s*$/;
    my $base = slug($1);
    my $anchor = $seen{$base}++ ? "$base-" . ($seen{$base} - 1) : $base;
    $set{$anchor} = 1;
  }
  return $anchors{$file} = \%set;
}

my $broken = 0;
for my $file (@ARGV) {
  (my $dir = $file) =~ s{[^/]*$}{};
  $dir = './' if $dir eq '';
  my @text = prose(read_lines($file));
  for my $n (0 .. $#text) {
    my $line = $text[$n];
    my @targets;
    push @targets, $1 while $line =~ /\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
    push @targets, $1 if $line =~ /^\s*\[[^\]]+\]:\s*(\S+)/;
    for my $target (@targets) {
      next if $target =~ m{^[a-z][a-z0-9+.-]*:}i;    # http:, https:, mailto:
      my ($path, $fragment) = split /#/, $target, 2;
      my $where = $path eq '' ? $file : "$dir$path";
      my $problem;
      if (!-e $where) {
        $problem = "$path does not exist";
      } elsif (defined $fragment && $fragment ne '' && $where =~ /\.md$/) {
        $problem = "$where has no heading or anchor #$fragment"
          unless anchors_of($where)->{$fragment};
      }
      next unless $problem;
      printf "%s:%d: %s: %s\n", $file, $n + 1, $target, $problem;
      $broken = 1;
    }
  }
}
exit $broken;
