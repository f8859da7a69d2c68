// SPDX-License-Identifier: GPL-3.0-or-later
// Live host mode against two copies of a Linux 6.18 machine's /proc taken one second apart
// during a write (tests/data/proc-6.18/{a,b}). Every expectation is read from those files here,
// with this file's own small parsers, never from what the sampler computed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "file_text.h"
#include "throttlelab/host/trace_host_facts.h"
#include "throttlelab/host/vmstat_sampler.h"

namespace fs = std::filesystem;
using throttlelab::host::readHostInfo;
using throttlelab::host::VmstatSampler;

namespace {

const fs::path kData = fs::path(THROTTLELAB_TEST_DATA) / "proc-6.18";

using throttlelab::test::readFile;
using throttlelab::test::writeFile;

/// "name value" or "Name: value kB" files as a map.
std::map<std::string, long long> keyValues(const fs::path& p) {
  std::map<std::string, long long> m;
  std::istringstream in(readFile(p));
  std::string name;
  long long value = 0;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    if (ls >> name >> value) {
      if (!name.empty() && name.back() == ':') name.pop_back();
      m[name] = value;
    }
  }
  return m;
}

long long intFile(const fs::path& p) {
  return std::stoll(readFile(p));
}

double uptime(const fs::path& dir) {
  return std::stod(readFile(dir / "uptime"));
}

struct ZoneTotals {
  long long min = 0, low = 0, high = 0, reserve = 0;
};

/// Watermark sums and totalreserve_pages (max protection + high, capped at managed, per zone).
ZoneTotals zoneTotals(const fs::path& p) {
  ZoneTotals t;
  std::istringstream in(readFile(p));
  std::string line;
  long long high = 0, prot = 0, managed = -1;
  bool zone = false;
  const auto finish = [&] {
    if (zone) t.reserve += managed >= 0 ? std::min(prot + high, managed) : prot + high;
  };
  while (std::getline(in, line)) {
    if (line.rfind("Node ", 0) == 0) {
      finish();
      zone = true;
      high = prot = 0;
      managed = -1;
      continue;
    }
    std::istringstream ls(line);
    std::string key;
    ls >> key;
    long long v = 0;
    if (key == "protection:") {
      std::string rest;
      std::getline(ls, rest);
      std::replace_if(
          rest.begin(), rest.end(), [](char c) { return c == '(' || c == ')' || c == ','; }, ' ');
      std::istringstream ps(rest);
      while (ps >> v) prot = std::max(prot, v);
    } else if ((key == "min" || key == "low" || key == "high" || key == "managed") && (ls >> v)) {
      if (key == "min") t.min += v;
      if (key == "low") t.low += v;
      if (key == "high") {
        t.high += v;
        high = v;
      }
      if (key == "managed") managed = v;
    }
  }
  finish();
  return t;
}

/// A writable copy of one snapshot, for the tests that damage files or switch snapshots.
class ProcCopy {
 public:
  ProcCopy() {
    char tmpl[] = "/tmp/throttlelab-proc-XXXXXX";
    m_dir = ::mkdtemp(tmpl);
    load("a");
  }
  ~ProcCopy() { fs::remove_all(m_dir); }
  ProcCopy(const ProcCopy&) = delete;
  ProcCopy& operator=(const ProcCopy&) = delete;
  void load(const std::string& snapshot) {
    fs::copy(kData / snapshot, m_dir,
             fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  }
  const fs::path& dir() const { return m_dir; }
  std::string root() const { return m_dir.string(); }

 private:
  fs::path m_dir;
};

/// Replaces the value of `name` in a "name value" file.
void setCounter(const fs::path& file, const std::string& name, long long value) {
  std::istringstream in(readFile(file));
  std::string out, line;
  bool found = false;
  while (std::getline(in, line)) {
    if (line.rfind(name + " ", 0) == 0) {
      line = name + " " + std::to_string(value);
      found = true;
    }
    out += line + "\n";
  }
  ASSERT_TRUE(found) << name;
  writeFile(file, out);
}

void removeLine(const fs::path& file, const std::string& prefix) {
  std::istringstream in(readFile(file));
  std::string out, line;
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) != 0) out += line + "\n";
  }
  writeFile(file, out);
}

}  // namespace

TEST(VmstatSampler, ValuesMatchTheFiles) {
  const fs::path a = kData / "a";
  const auto vm = keyValues(a / "vmstat");
  const auto mem = keyValues(a / "meminfo");
  const auto zones = zoneTotals(a / "zoneinfo");
  VmstatSampler sampler(a.string());
  const auto poll = sampler.poll(uptime(a));
  ASSERT_TRUE(poll.sample) << poll.error;
  EXPECT_TRUE(poll.error.empty());
  const auto& s = *poll.sample;
  EXPECT_EQ(s.dirtyPages, vm.at("nr_dirty"));
  EXPECT_EQ(s.writebackPages, vm.at("nr_writeback"));
  EXPECT_EQ(s.threshPages, vm.at("nr_dirty_threshold"));
  EXPECT_EQ(s.bgThreshPages, vm.at("nr_dirty_background_threshold"));
  EXPECT_EQ(s.freePages, vm.at("nr_free_pages"));
  EXPECT_EQ(s.filePages, vm.at("nr_file_pages"));
  EXPECT_EQ(s.anonPages, vm.at("nr_anon_pages"));
  EXPECT_EQ(s.dirtiedPages, vm.at("nr_dirtied"));
  EXPECT_EQ(s.writtenPages, vm.at("nr_written"));
  EXPECT_EQ(s.oomKills, vm.at("oom_kill"));
  EXPECT_EQ(s.totalPages, mem.at("MemTotal") / 4);
  EXPECT_EQ(s.swapTotalPages, mem.at("SwapTotal") / 4);
  EXPECT_EQ(s.swapUsedPages, (mem.at("SwapTotal") - mem.at("SwapFree")) / 4);
  EXPECT_EQ(s.wmarkMinPages, zones.min);
  EXPECT_EQ(s.wmarkLowPages, zones.low);
  EXPECT_EQ(s.wmarkHighPages, zones.high);
  EXPECT_LT(s.wmarkMinPages, s.wmarkLowPages);
  EXPECT_LT(s.wmarkLowPages, s.wmarkHighPages);
  // global_dirtyable_memory(): free above totalreserve_pages, plus the file LRU, plus one.
  const long long free = vm.at("nr_free_pages");
  EXPECT_EQ(s.availPages, free - std::min(free, zones.reserve) + vm.at("nr_active_file") +
                              vm.at("nr_inactive_file") + 1);
  EXPECT_DOUBLE_EQ(throttlelab::engine::toSeconds(s.time.time_since_epoch()), uptime(a));
  ASSERT_EQ(s.devices.size(), 1u);
  EXPECT_EQ(s.devices[0].reclaimablePages, vm.at("nr_dirty"));
  EXPECT_EQ(s.devices[0].writebackPages, vm.at("nr_writeback"));

  const auto& sys = sampler.sysctls();
  EXPECT_EQ(sys.dirtyRatio, intFile(a / "sys/vm/dirty_ratio"));
  EXPECT_EQ(sys.dirtyBackgroundRatio, intFile(a / "sys/vm/dirty_background_ratio"));
  EXPECT_EQ(sys.dirtyBytes, intFile(a / "sys/vm/dirty_bytes"));
  EXPECT_EQ(sys.dirtyBackgroundBytes, intFile(a / "sys/vm/dirty_background_bytes"));
  EXPECT_EQ(sys.dirtyExpireCentisecs, intFile(a / "sys/vm/dirty_expire_centisecs"));
  EXPECT_EQ(sys.dirtyWritebackCentisecs, intFile(a / "sys/vm/dirty_writeback_centisecs"));
}

TEST(VmstatSampler, ThresholdsFreerunAndSetpointAreOrdered) {
  const fs::path a = kData / "a";
  VmstatSampler sampler(a.string());
  const auto poll = sampler.poll(0);
  ASSERT_TRUE(poll.sample) << poll.error;
  const auto& s = *poll.sample;
  EXPECT_EQ(s.freerunPages, (s.threshPages + s.bgThreshPages) / 2);
  EXPECT_EQ(s.limitPages, s.threshPages);  // dirty_limit is not exported: settled system
  EXPECT_EQ(s.dirtyLimitPages, s.threshPages);
  EXPECT_EQ(s.setpointPages, (s.freerunPages + s.limitPages) / 2);
  EXPECT_LT(s.bgThreshPages, s.freerunPages);
  EXPECT_LT(s.freerunPages, s.setpointPages);
  EXPECT_LT(s.setpointPages, s.limitPages);
  // The snapshot was taken with vm.dirty_bytes set: the kernel's threshold is those bytes in
  // pages (domain_dirty_limits: DIV_ROUND_UP(bytes, PAGE_SIZE)).
  const long long bytes = intFile(a / "sys/vm/dirty_bytes");
  const long long bgBytes = intFile(a / "sys/vm/dirty_background_bytes");
  ASSERT_GT(bytes, 0);
  EXPECT_EQ(s.threshPages, (bytes + 4095) / 4096);
  EXPECT_EQ(s.bgThreshPages, (bgBytes + 4095) / 4096);
}

TEST(VmstatSampler, FirstPollHasNoRates) {
  VmstatSampler sampler((kData / "b").string());
  const auto poll = sampler.poll(uptime(kData / "b"));
  ASSERT_TRUE(poll.sample) << poll.error;
  const auto& s = *poll.sample;
  EXPECT_EQ(s.pgscanKswapdPerS, 0);
  EXPECT_EQ(s.pgscanDirectPerS, 0);
  EXPECT_EQ(s.pgstealPerS, 0);
  EXPECT_EQ(s.allocStalls, 0);
  EXPECT_FALSE(s.kswapdActive);
  EXPECT_EQ(s.devices.at(0).deviceWriteKBps, 0);
  EXPECT_EQ(s.devices.at(0).bytesWritten, 0);
}

/// The fixture's snapshots a and b (their counters and uptimes) and a sampler on a copy of a.
struct SnapshotsAAndB {
  ProcCopy proc;
  const std::map<std::string, long long> va = keyValues(kData / "a/vmstat");
  const std::map<std::string, long long> vb = keyValues(kData / "b/vmstat");
  const double ta = uptime(kData / "a");
  const double tb = uptime(kData / "b");
  VmstatSampler sampler{proc.root()};
  /// b's counter `k` less a's.
  double delta(const char* k) const { return static_cast<double>(vb.at(k) - va.at(k)); }
};

TEST(VmstatSampler, RatesAreTheDifferenceBetweenTwoPolls) {
  SnapshotsAAndB f;
  ASSERT_TRUE(f.sampler.poll(f.ta).sample);
  f.proc.load("b");
  const auto poll = f.sampler.poll(f.tb);
  ASSERT_TRUE(poll.sample) << poll.error;
  const auto& s = *poll.sample;
  const double dt = f.tb - f.ta;
  ASSERT_GT(f.delta("nr_written"), 0) << "the fixture was taken during a write";
  EXPECT_NEAR(s.devices.at(0).deviceWriteKBps, f.delta("nr_written") * 4 / dt, 1e-6);
  EXPECT_EQ(s.devices.at(0).bytesWritten, (f.vb.at("nr_written") - f.va.at("nr_written")) * 4096);
  EXPECT_NEAR(s.pgscanKswapdPerS, f.delta("pgscan_kswapd") / dt, 1e-6);
  EXPECT_NEAR(s.pgscanDirectPerS, f.delta("pgscan_direct") / dt, 1e-6);
  EXPECT_NEAR(s.pgstealPerS, (f.delta("pgsteal_kswapd") + f.delta("pgsteal_direct")) / dt, 1e-6);
  EXPECT_NEAR(s.swapOutKBps, f.delta("pswpout") * 4 / dt, 1e-6);
  EXPECT_NEAR(s.swapInKBps, f.delta("pswpin") * 4 / dt, 1e-6);
  long long stallsA = 0, stallsB = 0;
  for (const auto& [k, v] : f.va)
    if (k.rfind("allocstall", 0) == 0) stallsA += v;
  for (const auto& [k, v] : f.vb)
    if (k.rfind("allocstall", 0) == 0) stallsB += v;
  EXPECT_EQ(s.allocStalls, stallsB - stallsA);
  EXPECT_EQ(s.kswapdActive, f.vb.at("pgscan_kswapd") > f.va.at("pgscan_kswapd"));
  EXPECT_EQ(s.dirtyPages, f.vb.at("nr_dirty"));  // levels are b's, not differences
}

TEST(VmstatSampler, ReclaimActivityShowsAsRates) {
  // The snapshots caught no reclaim; add some to b's counters and check every rate follows.
  ProcCopy proc;
  const auto va = keyValues(kData / "a/vmstat");
  const double ta = uptime(kData / "a"), tb = uptime(kData / "b");
  VmstatSampler sampler(proc.root());
  ASSERT_TRUE(sampler.poll(ta).sample);
  proc.load("b");
  const fs::path vmstat = proc.dir() / "vmstat";
  setCounter(vmstat, "pgscan_kswapd", va.at("pgscan_kswapd") + 3000);
  setCounter(vmstat, "pgscan_direct", va.at("pgscan_direct") + 500);
  setCounter(vmstat, "pgsteal_kswapd", va.at("pgsteal_kswapd") + 2000);
  setCounter(vmstat, "pgsteal_direct", va.at("pgsteal_direct") + 400);
  setCounter(vmstat, "pswpout", va.at("pswpout") + 256);
  setCounter(vmstat, "pswpin", va.at("pswpin") + 64);
  setCounter(vmstat, "allocstall_normal", va.at("allocstall_normal") + 7);
  setCounter(vmstat, "allocstall_movable", va.at("allocstall_movable") + 2);
  setCounter(vmstat, "oom_kill", va.at("oom_kill") + 1);
  const auto poll = sampler.poll(tb);
  ASSERT_TRUE(poll.sample) << poll.error;
  const auto& s = *poll.sample;
  const double dt = tb - ta;
  EXPECT_TRUE(s.kswapdActive);
  EXPECT_NEAR(s.pgscanKswapdPerS, 3000 / dt, 1e-6);
  EXPECT_NEAR(s.pgscanDirectPerS, 500 / dt, 1e-6);
  EXPECT_NEAR(s.pgstealPerS, 2400 / dt, 1e-6);
  EXPECT_NEAR(s.swapOutKBps, 256 * 4 / dt, 1e-6);
  EXPECT_NEAR(s.swapInKBps, 64 * 4 / dt, 1e-6);
  EXPECT_EQ(s.allocStalls, 9);
  EXPECT_EQ(s.oomKills, va.at("oom_kill") + 1);  // cumulative, not a rate
}

TEST(VmstatSampler, CountersThatGoBackwardsGiveZeroRates) {
  ProcCopy proc;
  proc.load("b");
  VmstatSampler sampler(proc.root());
  ASSERT_TRUE(sampler.poll(uptime(kData / "a")).sample);
  proc.load("a");  // older counters at a later time
  const auto poll = sampler.poll(uptime(kData / "b"));
  ASSERT_TRUE(poll.sample) << poll.error;
  EXPECT_EQ(poll.sample->devices.at(0).deviceWriteKBps, 0);
  EXPECT_GE(poll.sample->pgstealPerS, 0);
}

TEST(VmstatSampler, TimeThatDoesNotAdvanceGivesZeroRates) {
  ProcCopy proc;
  VmstatSampler sampler(proc.root());
  ASSERT_TRUE(sampler.poll(5.0).sample);
  proc.load("b");
  const auto poll = sampler.poll(5.0);
  ASSERT_TRUE(poll.sample) << poll.error;
  EXPECT_EQ(poll.sample->devices.at(0).deviceWriteKBps, 0);
}

TEST(VmstatSampler, AFailedPollKeepsThePreviousCounters) {
  SnapshotsAAndB f;
  ASSERT_TRUE(f.sampler.poll(f.ta).sample);
  fs::remove(f.proc.dir() / "vmstat");
  EXPECT_FALSE(f.sampler.poll((f.ta + f.tb) / 2).sample);
  f.proc.load("b");
  const auto poll = f.sampler.poll(f.tb);
  ASSERT_TRUE(poll.sample) << poll.error;
  EXPECT_NEAR(poll.sample->devices.at(0).deviceWriteKBps, f.delta("nr_written") * 4 / (f.tb - f.ta),
              1e-6);
}

TEST(VmstatSampler, AMissingCounterIsNamed) {
  for (const std::string counter :
       {"nr_dirty", "nr_writeback", "nr_dirty_threshold", "nr_dirty_background_threshold",
        "nr_free_pages", "nr_written", "pgscan_kswapd", "pswpout"}) {
    ProcCopy proc;
    removeLine(proc.dir() / "vmstat", counter + " ");
    VmstatSampler sampler(proc.root());
    const auto poll = sampler.poll(1);
    EXPECT_FALSE(poll.sample) << counter;
    EXPECT_NE(poll.error.find(counter), std::string::npos) << poll.error;
    EXPECT_NE(poll.error.find(proc.root() + "/vmstat"), std::string::npos) << poll.error;
  }
}

TEST(VmstatSampler, AMissingFileIsNamed) {
  for (const std::string file :
       {"vmstat", "meminfo", "zoneinfo", "sys/vm/dirty_bytes", "sys/vm/dirty_background_ratio"}) {
    ProcCopy proc;
    fs::remove(proc.dir() / file);
    VmstatSampler sampler(proc.root());
    const auto poll = sampler.poll(1);
    EXPECT_FALSE(poll.sample) << file;
    EXPECT_NE(poll.error.find(proc.root() + "/" + file), std::string::npos) << poll.error;
    EXPECT_NE(poll.error.find("No such file"), std::string::npos) << poll.error;
  }
  {
    ProcCopy proc;
    removeLine(proc.dir() / "meminfo", "MemTotal:");
    const auto poll = VmstatSampler(proc.root()).poll(1);
    EXPECT_FALSE(poll.sample);
    EXPECT_NE(poll.error.find("MemTotal"), std::string::npos) << poll.error;
  }
}

TEST(VmstatSampler, GarbledLinesDoNotCrash) {
  ProcCopy proc;
  const auto va = keyValues(kData / "a/vmstat");
  const fs::path vmstat = proc.dir() / "vmstat";
  std::string text = readFile(vmstat);
  // Garbage in counters the sampler does not use, a line without a value, a huge number, a
  // very long line, NUL and high bytes, and no final newline.
  text = "pgfault notanumber\njustaname\n \n\t\nnr_mlock 99999999999999999999999\n" +
         std::string(100000, 'x') + " 1\n" + std::string("nr_zspages \0\xff\xfe 3\n", 17) + text +
         "numa_hit";
  writeFile(vmstat, text);
  VmstatSampler sampler(proc.root());
  const auto poll = sampler.poll(1);
  ASSERT_TRUE(poll.sample) << poll.error;
  EXPECT_EQ(poll.sample->dirtyPages, va.at("nr_dirty"));
  EXPECT_EQ(poll.sample->writtenPages, va.at("nr_written"));

  // Garbage where a used counter should be is an error that names it.
  setCounter(vmstat, "nr_dirty", 0);
  text = readFile(vmstat);
  text.replace(text.find("nr_dirty 0"), 10, "nr_dirty 12x4");
  writeFile(vmstat, text);
  const auto bad = sampler.poll(2);
  EXPECT_FALSE(bad.sample);
  EXPECT_NE(bad.error.find("nr_dirty"), std::string::npos) << bad.error;

  writeFile(vmstat, "");
  const auto empty = sampler.poll(3);
  EXPECT_FALSE(empty.sample);
  EXPECT_FALSE(empty.error.empty());

  writeFile(proc.dir() / "sys/vm/dirty_ratio", "twenty\n");
  const auto sysctl = sampler.poll(4);
  EXPECT_FALSE(sysctl.sample);
  EXPECT_NE(sysctl.error.find("dirty_ratio"), std::string::npos) << sysctl.error;
}

TEST(VmstatSampler, SysctlsAreReadOnEveryPoll) {
  ProcCopy proc;
  VmstatSampler sampler(proc.root());
  ASSERT_TRUE(sampler.poll(1).sample);
  const int before = sampler.sysctls().dirtyRatio;
  writeFile(proc.dir() / "sys/vm/dirty_ratio", std::to_string(before + 7) + "\n");
  writeFile(proc.dir() / "sys/vm/dirty_bytes", "0\n");
  ASSERT_TRUE(sampler.poll(1.1).sample);
  EXPECT_EQ(sampler.sysctls().dirtyRatio, before + 7);
  EXPECT_EQ(sampler.sysctls().dirtyBytes, 0);
}

TEST(VmstatSampler, AnUnreadableRootIsAnErrorNotACrash) {
  VmstatSampler sampler("/nonexistent/throttlelab-proc");
  const auto poll = sampler.poll(0);
  EXPECT_FALSE(poll.sample);
  EXPECT_NE(poll.error.find("/nonexistent/throttlelab-proc/"), std::string::npos);
}

TEST(HostInfo, ReadsTheFixture) {
  const fs::path a = kData / "a";
  const auto info = readHostInfo(a.string());
  int cpus = 0;
  std::istringstream stat(readFile(a / "stat"));
  for (std::string line; std::getline(stat, line);) {
    if (line.size() > 3 && line.rfind("cpu", 0) == 0 && std::isdigit(line[3])) ++cpus;
  }
  EXPECT_EQ(info.cpus, cpus);
  EXPECT_GT(info.cpus, 0);
  const auto mem = keyValues(a / "meminfo");
  EXPECT_EQ(info.memTotalKiB, mem.at("MemTotal"));
  EXPECT_EQ(info.swapTotalKiB, mem.at("SwapTotal"));
  std::string release = readFile(a / "sys/kernel/osrelease");
  release.erase(release.find_last_not_of("\n") + 1);
  EXPECT_EQ(info.kernelRelease, release);
  // The capturing kernel was built with CONFIG_HZ=250 (tests/data/kernel-6.18/README.md);
  // both snapshots' timer_list must say so.
  EXPECT_EQ(info.hz, 250);
  EXPECT_EQ(readHostInfo((kData / "b").string()).hz, 250);
}

TEST(HostInfo, MissingFilesLeaveFieldsEmpty) {
  ProcCopy proc;
  fs::remove(proc.dir() / "timer_list");
  fs::remove(proc.dir() / "sys/kernel/osrelease");
  auto info = readHostInfo(proc.root());
  EXPECT_EQ(info.hz, 0);
  EXPECT_TRUE(info.kernelRelease.empty());
  EXPECT_GT(info.cpus, 0);
  // A timer_list whose jiffies fit no HZ is "unknown", not a guess.
  writeFile(proc.dir() / "timer_list", "now at 1000000000000 nsecs\njiffies: 12345\n");
  EXPECT_EQ(readHostInfo(proc.root()).hz, 0);
  EXPECT_EQ(readHostInfo("/nonexistent/throttlelab-proc"), throttlelab::host::HostInfo{});
}

// A fake /sys with one device by major:minor (how the tracepoints name a bdi) and one by name.
class SysCopy {
 public:
  SysCopy() {
    char tmpl[] = "/tmp/throttlelab-sys-XXXXXX";
    m_dir = ::mkdtemp(tmpl);
    makeQueue(m_dir / "dev/block/254:0/queue", "4096\n", "256\n", "1\n", "[mq-deadline] none\n");
    makeQueue(m_dir / "block/sda/queue", "512\n", "64\n", "0\n", "none [bfq] mq-deadline\n");
  }
  ~SysCopy() { fs::remove_all(m_dir); }
  SysCopy(const SysCopy&) = delete;
  SysCopy& operator=(const SysCopy&) = delete;
  std::string root() const { return m_dir.string(); }
  const fs::path& dir() const { return m_dir; }

 private:
  static void makeQueue(const fs::path& q, const std::string& maxKb, const std::string& nr,
                        const std::string& rot, const std::string& sched) {
    fs::create_directories(q);
    writeFile(q / "max_sectors_kb", maxKb);
    writeFile(q / "nr_requests", nr);
    writeFile(q / "rotational", rot);
    writeFile(q / "scheduler", sched);
  }
  fs::path m_dir;
};

TEST(BlockQueue, ReadsADeviceByMajorMinorOrByName) {
  SysCopy sys;
  struct Queue {
    std::string name;
    int maxSectorsKb, nrRequests, rotational;
    std::string scheduler;
  };
  for (const Queue& e :
       {Queue{"254:0", 4096, 256, 1, "mq-deadline"}, Queue{"sda", 512, 64, 0, "bfq"}}) {
    SCOPED_TRACE(e.name);
    const auto q = throttlelab::host::readBlockQueue(e.name, sys.root());
    EXPECT_TRUE(q.found);
    EXPECT_EQ(q.maxSectorsKb, e.maxSectorsKb);
    EXPECT_EQ(q.nrRequests, e.nrRequests);
    EXPECT_EQ(q.rotational, e.rotational);
    EXPECT_EQ(q.scheduler, e.scheduler);
  }
}

TEST(BlockQueue, UnknownOrUnsafeNamesFindNothing) {
  SysCopy sys;
  for (const std::string name : {"8:16", "", "../block/sda", "sda/../../etc", "a b"})
    EXPECT_FALSE(throttlelab::host::readBlockQueue(name, sys.root()).found) << name;
  // A garbled number leaves that field unknown, and the rest still reads.
  writeFile(sys.dir() / "block/sda/queue/nr_requests", "lots\n");
  const auto sda = throttlelab::host::readBlockQueue("sda", sys.root());
  EXPECT_TRUE(sda.found);
  EXPECT_EQ(sda.nrRequests, 0);
  EXPECT_EQ(sda.maxSectorsKb, 512);
}

TEST(HostFactsForATrace, AddTheQueuesOfTheTracedDevicesOnly) {
  SysCopy sys;
  throttlelab::traceio::TraceStats::Result measured;
  measured.writeBwKBps["254:0"] = 440400;
  for (const auto& [pid, bdi] : {std::pair{7, "sda"}, std::pair{8, "8:16"}}) {  // 8:16: not here
    throttlelab::traceio::TaskRate task;
    task.pid = pid;
    task.comm = "dd";
    task.bdi = bdi;
    measured.tasks.push_back(task);
  }
  const auto facts = throttlelab::host::hostFactsFor(measured, (kData / "a").string(), sys.root());
  EXPECT_EQ(facts.cpus, readHostInfo((kData / "a").string()).cpus);
  EXPECT_EQ(facts.memoryMiB, readHostInfo((kData / "a").string()).memTotalKiB / 1024);
  ASSERT_EQ(facts.queues.size(), 2u);
  EXPECT_EQ(facts.queues.at("254:0").maxRequestKiB, 4096);
  EXPECT_EQ(facts.queues.at("254:0").nrRequests, 256);
  EXPECT_EQ(facts.queues.at("sda").maxRequestKiB, 512);
  EXPECT_EQ(facts.queues.count("8:16"), 0u);
}
