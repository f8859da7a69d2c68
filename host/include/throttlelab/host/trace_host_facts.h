// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// "The trace was taken on this machine": what this host can add to a scenario derived from a
/// trace (traceio::deriveScenario) — CPUs, memory, HZ where readable, and the request queue of
/// every bdi the trace names. Used by `--import-trace --simulate --this-host` and the window.
#include <string>

#include "throttlelab/traceio/trace_stats.h"

namespace throttlelab::host {

traceio::HostFacts hostFactsFor(const traceio::TraceStats::Result& measured,
                                const std::string& procRoot = "/proc",
                                const std::string& sysRoot = "/sys");

}  // namespace throttlelab::host
