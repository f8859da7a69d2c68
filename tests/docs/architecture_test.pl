#!/usr/bin/perl
# SPDX-License-Identifier: GPL-3.0-or-later
# architecture_test.pl SOURCE_DIR: docs/architecture.md's table of the engine's folders says
# what engine/CMakeLists.txt builds. Every folder of engine/src has a throttlelab_engine_folder()
# line and a table row, and the folders a row says it uses are the ones the line names (so the
# page cannot drift from the boundaries the build enforces).
use strict;
use warnings;

my $src = shift or die "usage: architecture_test.pl SOURCE_DIR\n";
sub slurp {
  my ($path) = @_;
  open(my $fh, '<', $path) or die "FAIL: cannot read $path: $!\n";
  local $/;
  return <$fh>;
}

my %built;
my $cmake = slurp("$src/engine/CMakeLists.txt");
while ($cmake =~ /^throttlelab_engine_folder\((\w+)([^)]*)\)/mg) {
  my ($folder, $args) = ($1, $2);
  next if $folder eq 'folder';    # the function's own definition
  my @uses = grep { /^[a-z]+$/ && $_ ne 'PUBLIC' } split /\s+/, $args;
  $built{$folder} = join(',', sort @uses);
}

my %drawn;
my $page = slurp("$src/docs/architecture.md");
my ($section) = $page =~ /^## The engine's folders\n(.*?)^## /ms
  or die "FAIL: docs/architecture.md has no section \"The engine's folders\"\n";
for my $line (split /\n/, $section) {
  next unless $line =~ /^\|\s*`(\w+)`\s*\|[^|]*\|([^|]*)\|\s*$/;
  my ($folder, $uses) = ($1, $2);
  $uses =~ s/\([^)]*\)//g;    # "(in .cpp only)", "(nothing)"
  my @uses = grep { /^[a-z]+$/ } split /[\s,;]+/, $uses;
  $drawn{$folder} = join(',', sort @uses);
}

opendir(my $dh, "$src/engine/src") or die "FAIL: no engine/src under $src\n";
my @folders = sort grep { !/^\./ && -d "$src/engine/src/$_" } readdir $dh;
my $failed = 0;
for my $f (@folders) {
  if (!exists $built{$f}) {
    print "FAIL: engine/src/$f has no throttlelab_engine_folder($f ...) in engine/CMakeLists.txt\n";
    $failed = 1;
  } elsif (!exists $drawn{$f}) {
    print "FAIL: engine/src/$f has no row in docs/architecture.md's table of folders\n";
    $failed = 1;
  } elsif ($built{$f} ne $drawn{$f}) {
    print "FAIL: $f uses [$built{$f}] in engine/CMakeLists.txt, [$drawn{$f}] in docs/architecture.md\n";
    $failed = 1;
  }
}
for my $f (sort keys %drawn) {
  next if grep { $_ eq $f } @folders;
  print "FAIL: docs/architecture.md has a row for $f, which is no folder of engine/src\n";
  $failed = 1;
}
exit 1 if $failed;
printf "PASS: the %d engine folders and what they use agree in the build and the page\n",
  scalar @folders;
