// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Every option of the command line, for the tests that its help and the executable's --help
// name them all.
#include <string>
#include <vector>

namespace throttlelab::cli::test {

inline const std::vector<std::string> kAllOptions{"--headless",
                                                  "--scenario",
                                                  "--duration",
                                                  "--seed",
                                                  "--policy",
                                                  "--set",
                                                  "--csv",
                                                  "--task-csv",
                                                  "--trace-out",
                                                  "--summary",
                                                  "--list-scenarios",
                                                  "--run-for",
                                                  "--export-png",
                                                  "--export-svg",
                                                  "--export-pdf",
                                                  "--export-csv",
                                                  "--session",
                                                  "--quit",
                                                  "--presenter",
                                                  "--version",
                                                  "--help",
                                                  "--compare",
                                                  "--seeds",
                                                  "--report",
                                                  "--experiment",
                                                  "--quick",
                                                  "--import-trace",
                                                  "--simulate",
                                                  "--this-host",
                                                  "--record-trace",
                                                  "--branch-at",
                                                  "--branch-set",
                                                  "--branch-csv",
                                                  "--snapshot-budget",
                                                  "--check",
                                                  "--unanswered"};

}  // namespace throttlelab::cli::test
