// SPDX-License-Identifier: GPL-3.0-or-later
// Live host mode, one memory cgroup, against fixture directories laid out as cgroup v1 and v2
// mount them (a temporary cgroup root per test). The expected numbers are worked out here by
// hand from the files written, in 4 KiB pages.
#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <string>

#include "test_dir.h"
#include "throttlelab/host/cgroup_sampler.h"

namespace fs = std::filesystem;
using namespace throttlelab::host;
using throttlelab::engine::Pages;
using throttlelab::engine::Sample;

namespace {

constexpr std::int64_t kMiB = 1024 * 1024;

void spit(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::trunc);
  out << text;
}

/// A v2 memory.stat in the kernel's order, with the fields a poll reads among others.
std::string v2Stat(std::int64_t file, std::int64_t dirty, std::int64_t writeback) {
  return "anon 104857600\nfile " + std::to_string(file) +
         "\nkernel 8388608\nshmem 0\nfile_mapped 4096\nfile_dirty " + std::to_string(dirty) +
         "\nfile_writeback " + std::to_string(writeback) + "\nswapcached 0\nanon_thp 0\n";
}

/// A v1 memory.stat: the cgroup's own counters and the hierarchy's totals.
std::string v1Stat(std::int64_t totalCache, std::int64_t totalDirty, std::int64_t totalWriteback,
                   std::int64_t hierarchicalLimit) {
  return "cache 4096\nrss 0\nshmem 0\nmapped_file 0\ndirty 0\nwriteback 0\nswap 0\n"
         "hierarchical_memory_limit " +
         std::to_string(hierarchicalLimit) + "\ntotal_cache " + std::to_string(totalCache) +
         "\ntotal_rss 0\ntotal_dirty " + std::to_string(totalDirty) + "\ntotal_writeback " +
         std::to_string(totalWriteback) + "\n";
}

DirtySysctls ratios(int dirty, int background) {
  DirtySysctls s;
  s.dirtyRatio = dirty;
  s.dirtyBackgroundRatio = background;
  return s;
}

Sample machine(Pages avail, Pages dirty) {
  Sample s;
  s.availPages = avail;
  s.dirtyPages = dirty;
  return s;
}

class CgroupSamplerTest : public throttlelab::test::TestDirFixture {
 protected:
  CgroupSamplerTest() : TestDirFixture("tl-cgroup") {}
  std::string root() const { return (m_dir / "cgroup").string(); }
  /// A v2 cgroup: memory.max/high/current, and its memory.stat.
  fs::path v2(const std::string& rel, const std::string& max, const std::string& high,
              std::int64_t current) {
    const fs::path d = m_dir / "cgroup" / rel;
    spit(d / "memory.max", max + "\n");
    spit(d / "memory.high", high + "\n");
    spit(d / "memory.current", std::to_string(current) + "\n");
    return d;
  }
};

TEST_F(CgroupSamplerTest, AV2CgroupsDomainIsDerivedFromItsLimitAndTheMachine) {
  // The v2 root has a memory.stat and no limits of its own.
  spit(m_dir / "cgroup" / "memory.stat", v2Stat(0, 0, 0));
  const fs::path box = v2("box", std::to_string(1024 * kMiB), "max", 512 * kMiB);
  spit(box / "memory.stat", v2Stat(256 * kMiB, 64 * kMiB, 16 * kMiB));
  const CgroupLocation where = locateCgroup("box", root());
  ASSERT_TRUE(where.ok()) << where.error;
  EXPECT_EQ(where.version, CgroupVersion::V2);
  EXPECT_EQ(where.name, "box");

  CgroupSampler sampler(where);
  const auto p = sampler.poll(machine(2'000'000, 100'000), ratios(20, 10));
  ASSERT_TRUE(p.sample) << p.error;
  const auto& c = *p.sample;
  // file, file_dirty, file_writeback and memory.max in pages.
  EXPECT_EQ((std::array{c.filePages, c.dirtyPages, c.writebackPages, c.maxPages}),
            (std::array<Pages, 4>{65536, 16384, 4096, 262144}));
  // Headroom 262144 − 131072 = 131072 pages, far less than the machine's clean memory outside
  // the cgroup: dirtyable = 65536 + 131072. The ratios per PAGE_SIZE: 20 % → 819/4096,
  // 10 % → 409/4096 of it.
  EXPECT_EQ(c.availPages, 196608);
  EXPECT_EQ(c.threshPages, 819 * 196608 / 4096);
  EXPECT_EQ(c.bgThreshPages, 409 * 196608 / 4096);
  EXPECT_EQ(c.freerunPages, (c.threshPages + c.bgThreshPages) / 2);
  EXPECT_EQ(c.limitPages, c.threshPages);
}

TEST_F(CgroupSamplerTest, AStricterAncestorBoundsTheHeadroomAndTheLimit) {
  v2("parent", std::to_string(256 * kMiB), "max", 200 * kMiB);
  const fs::path child = v2("parent/child", "max", std::to_string(1024 * kMiB), 100 * kMiB);
  spit(child / "memory.stat", v2Stat(256 * kMiB, 0, 0));
  CgroupSampler sampler(locateCgroup("parent/child", root()));
  const auto p = sampler.poll(machine(2'000'000, 0), ratios(20, 10));
  ASSERT_TRUE(p.sample) << p.error;
  // The child's own headroom (1 GiB high − 100 MiB) is larger than the parent's
  // (256 − 200 MiB = 14336 pages): dirtyable = 65536 + 14336.
  EXPECT_EQ(p.sample->availPages, 65536 + 14336);
  EXPECT_EQ(p.sample->threshPages, 819 * (65536 + 14336) / 4096);
  EXPECT_EQ(p.sample->maxPages, 65536);  // the parent's memory.max is the one that binds
}

TEST_F(CgroupSamplerTest, WithoutALimitTheHeadroomIsTheMachinesCleanMemory) {
  const fs::path box = v2("box", "max", "max", 0);
  spit(box / "memory.stat", v2Stat(40 * kMiB, 4 * kMiB, 0));
  CgroupSampler sampler(locateCgroup(box.string(), root()));  // an absolute path
  const auto p = sampler.poll(machine(100'000, 20'000), ratios(20, 10));
  ASSERT_TRUE(p.sample) << p.error;
  EXPECT_EQ(p.sample->maxPages, 0);  // "max"
  // Clean outside: (100000 − 20000) − (10240 − 1024) = 70784; dirtyable = 10240 + 70784.
  EXPECT_EQ(p.sample->availPages, 81024);
}

TEST_F(CgroupSamplerTest, AV1CgroupHasItsLimitButNoDirtyDomain) {
  const fs::path box = m_dir / "cgroup" / "memory" / "box";
  spit(box / "memory.limit_in_bytes", std::to_string(1024 * kMiB) + "\n");
  spit(box / "memory.stat", v1Stat(300 * kMiB, 12 * kMiB, 4 * kMiB, 1024 * kMiB));
  // Found below memory/, where v1 mounts the memory controller.
  const CgroupLocation where = locateCgroup("box", root());
  ASSERT_TRUE(where.ok()) << where.error;
  EXPECT_EQ(where.version, CgroupVersion::V1);
  EXPECT_EQ(where.name, "memory/box");
  CgroupSampler sampler(where);
  const auto p = sampler.poll(machine(2'000'000, 0), ratios(20, 10));
  ASSERT_TRUE(p.sample) << p.error;
  EXPECT_EQ(p.sample->filePages, 76800);  // total_cache, the hierarchy's, not `cache`
  EXPECT_EQ(p.sample->dirtyPages, 3072);
  EXPECT_EQ(p.sample->writebackPages, 1024);
  EXPECT_EQ(p.sample->maxPages, 262144);
  EXPECT_EQ(p.sample->threshPages, 0);
  EXPECT_EQ(p.sample->availPages, 0);

  // v1's "no limit" is PAGE_COUNTER_MAX pages in bytes.
  spit(box / "memory.stat", v1Stat(300 * kMiB, 12 * kMiB, 4 * kMiB, 9223372036854771712LL));
  const auto unlimited = sampler.poll(machine(2'000'000, 0), ratios(20, 10));
  ASSERT_TRUE(unlimited.sample) << unlimited.error;
  EXPECT_EQ(unlimited.sample->maxPages, 0);
}

TEST_F(CgroupSamplerTest, AV1StatWithoutTotalsUsesTheCgroupsOwnCounters) {
  const fs::path box = m_dir / "cgroup" / "memory" / "flat";
  spit(box / "memory.limit_in_bytes", "9223372036854771712\n");
  spit(box / "memory.stat", "cache 8192\ndirty 4096\nwriteback 0\n");
  CgroupSampler sampler(locateCgroup("memory/flat", root()));
  const auto p = sampler.poll(machine(1000, 0), ratios(20, 10));
  ASSERT_TRUE(p.sample) << p.error;
  EXPECT_EQ(p.sample->filePages, 2);
  EXPECT_EQ(p.sample->dirtyPages, 1);
  EXPECT_EQ(p.sample->maxPages, 0);
}

TEST_F(CgroupSamplerTest, AVanishedCgroupIsSaidSoAndABadFileNamesItself) {
  const fs::path box = v2("box", "max", "max", 0);
  spit(box / "memory.stat", v2Stat(0, 0, 0));
  CgroupSampler sampler(locateCgroup("box", root()));
  ASSERT_TRUE(sampler.poll(machine(1000, 0), ratios(20, 10)).sample);

  spit(box / "memory.max", "lots\n");
  auto p = sampler.poll(machine(1000, 0), ratios(20, 10));
  EXPECT_FALSE(p.sample);
  EXPECT_FALSE(p.vanished);
  EXPECT_NE(p.error.find((box / "memory.max").string()), std::string::npos) << p.error;
  EXPECT_NE(p.error.find("lots"), std::string::npos) << p.error;

  spit(box / "memory.max", "max\n");
  spit(box / "memory.stat", "anon 0\nfile 0\n");
  p = sampler.poll(machine(1000, 0), ratios(20, 10));
  EXPECT_FALSE(p.sample);
  EXPECT_NE(p.error.find("file_dirty"), std::string::npos) << p.error;

  fs::remove_all(box);
  p = sampler.poll(machine(1000, 0), ratios(20, 10));
  EXPECT_FALSE(p.sample);
  EXPECT_TRUE(p.vanished);
  EXPECT_NE(p.error.find("removed"), std::string::npos) << p.error;
  EXPECT_NE(p.error.find("box"), std::string::npos) << p.error;
}

TEST_F(CgroupSamplerTest, AnUnreadableStatIsAnErrorButNotAVanishing) {
  const fs::path box = v2("box", "max", "max", 0);
  spit(box / "memory.stat", v2Stat(0, 0, 0));
  CgroupSampler sampler(locateCgroup("box", root()));
  // Root reads any mode, so a directory stands for a file that cannot be read.
  fs::remove(box / "memory.stat");
  fs::create_directory(box / "memory.stat");
  const auto p = sampler.poll(machine(1000, 0), ratios(20, 10));
  EXPECT_FALSE(p.sample);
  EXPECT_FALSE(p.vanished);
  EXPECT_NE(p.error.find("cannot read " + (box / "memory.stat").string()), std::string::npos)
      << p.error;
}

TEST_F(CgroupSamplerTest, PathsThatAreNoMemoryCgroupAreRefusedByName) {
  fs::create_directories(m_dir / "cgroup" / "cpu" / "box");
  auto where = locateCgroup("nope", root());
  EXPECT_FALSE(where.ok());
  EXPECT_NE(where.error.find("'nope'"), std::string::npos) << where.error;
  EXPECT_NE(where.error.find(root() + "/nope"), std::string::npos) << where.error;
  EXPECT_NE(where.error.find(root() + "/memory/nope"), std::string::npos) << where.error;

  where = locateCgroup("cpu/box", root());
  EXPECT_FALSE(where.ok());
  EXPECT_NE(where.error.find("not a memory cgroup"), std::string::npos) << where.error;

  for (const char* bad : {"../etc", "a/../../b", "..", ""}) {
    where = locateCgroup(bad, root());
    EXPECT_FALSE(where.ok()) << bad;
    EXPECT_NE(where.error.find("not a cgroup path"), std::string::npos) << where.error;
  }
}

TEST_F(CgroupSamplerTest, ListsTheMemoryCgroupsOfBothHierarchies) {
  spit(m_dir / "cgroup" / "memory" / "memory.stat", v1Stat(0, 0, 0, 0));
  spit(m_dir / "cgroup" / "memory" / "a" / "memory.stat", v1Stat(0, 0, 0, 0));
  spit(m_dir / "cgroup" / "memory" / "a" / "b" / "memory.stat", v1Stat(0, 0, 0, 0));
  spit(m_dir / "cgroup" / "unified" / "box" / "memory.stat", v2Stat(0, 0, 0));
  fs::create_directories(m_dir / "cgroup" / "cpu" / "a");
  EXPECT_EQ(listMemoryCgroups(root()),
            (std::vector<std::string>{"memory", "memory/a", "memory/a/b", "unified/box"}));
  EXPECT_EQ(listMemoryCgroups(root(), 2).size(), 2u);
  EXPECT_TRUE(listMemoryCgroups((m_dir / "absent").string()).empty());
}

TEST(CgroupLimit, MaxAndHugeValuesAreNoLimit) {
  EXPECT_EQ(cgroupLimitPages("max\n"), Pages{0});
  EXPECT_EQ(cgroupLimitPages("9223372036854771712"), Pages{0});
  EXPECT_EQ(cgroupLimitPages("1073741824\n"), Pages{262144});
  EXPECT_EQ(cgroupLimitPages("0"), Pages{1});  // memory.max = 0 is a limit, not none
  EXPECT_FALSE(cgroupLimitPages("-1"));
  EXPECT_FALSE(cgroupLimitPages("1G"));
}

}  // namespace
