// SPDX-License-Identifier: GPL-3.0-or-later
#include "throttlelab/host/trace_host_facts.h"

#include "throttlelab/host/vmstat_sampler.h"

namespace throttlelab::host {

traceio::HostFacts hostFactsFor(const traceio::TraceStats::Result& measured,
                                const std::string& procRoot, const std::string& sysRoot) {
  const HostInfo info = readHostInfo(procRoot);
  traceio::HostFacts facts;
  facts.cpus = info.cpus;
  facts.memoryMiB = info.memTotalKiB / 1024;
  facts.hz = info.hz;
  const auto addQueue = [&](const std::string& bdi) {
    if (bdi.empty() || facts.queues.count(bdi)) return;
    const BlockQueueInfo q = readBlockQueue(bdi, sysRoot);
    if (q.found) facts.queues[bdi] = {q.maxSectorsKb, q.nrRequests};
  };
  for (const auto& [bdi, bw] : measured.writeBwKBps) addQueue(bdi);
  for (const auto& task : measured.tasks) addQueue(task.bdi);
  return facts;
}

}  // namespace throttlelab::host
