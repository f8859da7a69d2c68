// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Standard input, output and error that the program was started without (`>&-`, `2>&-`,
/// `<&-`). A closed descriptor is the lowest free number, so the first file the program opens
/// would take it: a temporary file on descriptor 1 received what was printed to standard output
/// (`--csv - >&-` exited 0 with the CSV in the program's own temporary file), and an output on
/// descriptor 2 would receive the messages. main() reserves the three numbers before anything
/// is opened and then refuses what cannot run without them.
namespace throttlelab::cli {

struct ClosedStandardStreams {
  bool input = false;   ///< descriptor 0 was closed
  bool output = false;  ///< descriptor 1 was closed
  bool error = false;   ///< descriptor 2 was closed
};

/// Opens /dev/null on each of descriptors 0, 1 and 2 that is closed, so that no file the program
/// opens later can take its number: standard input reads as empty; standard output is opened
/// for reading only, so that a write to it fails (EBADF) and is reported as a failed write
/// rather than going anywhere; standard error for writing, so that messages are dropped as
/// the caller arranged, never written into an output file. Returns which were closed.
ClosedStandardStreams reserveStandardStreams();

}  // namespace throttlelab::cli
