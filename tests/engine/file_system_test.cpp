// SPDX-License-Identifier: GPL-3.0-or-later
// The file system under writeback: delayed allocation and extents, mount options and atime
// rules, the journal's waits, reads behind writes under the elevators (docs/model.md, The file
// system).
#include <gtest/gtest.h>

#include <algorithm>

#include "block_device.h"
#include "file_system.h"
#include "throttlelab/engine/simulator.h"

namespace throttlelab::engine {
namespace {

DeviceConfig deviceWith(std::string fs, std::string options = {}) {
  DeviceConfig d;
  d.fileSystem = std::move(fs);
  d.mountOptions = std::move(options);
  return d;
}

TEST(FileSystem, DelayedAllocationInterleavesConcurrentFilesAndGrowsAnUninterruptedOne) {
  FileSystem fs(deviceWith("xfs"));
  const int a = 0, b = 1;
  const Pages size = 100000;
  Pages run = 0;
  bool allocated = false;
  // Writeback alternates between the files, 1024 pages each, with only that much dirty.
  const std::int64_t a0 = fs.mapForWriteback(a, size, 0, 1024, 1024, &run, &allocated);
  EXPECT_TRUE(allocated);
  EXPECT_EQ(run, 1024);
  const std::int64_t b0 = fs.mapForWriteback(b, size, 0, 1024, 1024, &run, &allocated);
  const std::int64_t a1 = fs.mapForWriteback(a, size, 1024, 1024, 1024, &run, &allocated);
  EXPECT_EQ(b0, a0 + 1024);  // b's extent lies right after a's first one
  EXPECT_EQ(a1, b0 + 1024);  // a's second extent after b's: not contiguous with a0
  EXPECT_EQ(fs.extentCount(), 3);
  // Nobody allocated between a1 and a2: the extent grows instead of a new one.
  fs.mapForWriteback(a, size, 2048, 1024, 1024, &run, &allocated);
  EXPECT_EQ(fs.extentCount(), 3);
  // Mapping already allocated pages allocates nothing and stops at the extent's end.
  const std::int64_t again = fs.mapForWriteback(a, size, 512, 4096, 0, &run, &allocated);
  EXPECT_FALSE(allocated);
  EXPECT_EQ(again, a0 + 512);
  EXPECT_EQ(run, 512);
  EXPECT_EQ(fs.regionBytes(), 0U);  // the old per-file regions are not used
}

TEST(FileSystem, Ext4MapsAtMostEightMiBWhereXfsTakesTheWholeDirtyRange) {
  FileSystem ext4(deviceWith("ext4")), xfs(deviceWith("xfs"));
  Pages run = 0;
  bool allocated = false;
  ext4.mapForWriteback(0, 1 << 20, 0, 1024, 100000, &run, &allocated);
  xfs.mapForWriteback(0, 1 << 20, 0, 1024, 100000, &run, &allocated);
  // The next free block tells how much each allocated.
  EXPECT_EQ(ext4.mapForWriteback(1, 16, 0, 1, 1, &run, &allocated), 2048);
  EXPECT_EQ(xfs.mapForWriteback(1, 16, 0, 1, 1, &run, &allocated), 100000);
}

TEST(FileSystem, NoneAndExt3KeepEachFileOneRegion) {
  for (const char* kind : {"", "ext3"}) {
    FileSystem fs(deviceWith(kind));
    const int a = 0, b = 1;
    Pages run = 0;
    bool allocated = false;
    EXPECT_EQ(fs.mapForWriteback(a, 5000, 0, 1024, 1024, &run, &allocated), 0);
    EXPECT_EQ(fs.mapForWriteback(b, 5000, 0, 1024, 1024, &run, &allocated), 5000);
    EXPECT_EQ(fs.mapForWriteback(a, 5000, 1024, 1024, 1024, &run, &allocated), 1024) << kind;
    EXPECT_FALSE(allocated);
  }
}

TEST(FileSystem, MountOptionsAreParsedAndBadOnesNamed) {
  std::string error;
  const auto o = parseMountOptions("noatime,data=writeback,commit=30", &error);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->atime, AtimeMode::Noatime);
  EXPECT_EQ(o->data, DataMode::Writeback);
  EXPECT_EQ(o->commitS, 30);
  EXPECT_EQ(parseMountOptions("", &error)->atime, AtimeMode::Relatime);
  EXPECT_FALSE(parseMountOptions("noatime,atime", &error));
  EXPECT_NE(error.find("atime"), std::string::npos);
  EXPECT_FALSE(parseMountOptions("barrier=0", &error));
  EXPECT_NE(error.find("barrier=0"), std::string::npos);
  EXPECT_FALSE(parseMountOptions("commit=0", &error));
}

TEST(FileSystem, AtimeRules) {
  FileSystem strict(deviceWith("ext3", "atime")), rel(deviceWith("ext3", "relatime")),
      no(deviceWith("ext3", "noatime"));
  InodeTimes s, r, n;
  EXPECT_TRUE(strict.atimeUpdate(s, 10.2));
  EXPECT_FALSE(strict.atimeUpdate(s, 10.7));  // same second
  EXPECT_TRUE(strict.atimeUpdate(s, 11.1));
  EXPECT_TRUE(rel.atimeUpdate(r, 10.2));  // atime older than mtime (never set)
  EXPECT_FALSE(rel.atimeUpdate(r, 20));   // newer than mtime, younger than a day
  r.mtimeS = 25;
  EXPECT_TRUE(rel.atimeUpdate(r, 30));  // the file was written since
  EXPECT_TRUE(rel.atimeUpdate(r, 30 + 24 * 3600.0));
  EXPECT_FALSE(no.atimeUpdate(n, 1));
}

TEST(FileSystem, JournalLogBlocksCountMetadataAndDescriptors) {
  FileSystem fs(deviceWith("ext4"));
  Transaction t;
  EXPECT_EQ(fs.journal().logPagesFor(t), 0);
  for (int i = 0; i < 20; ++i) t.inodes.push_back(i);
  t.groups = {0, 1, 2};
  // 2 inode-table blocks (16 inodes each), 3 bitmaps, 1 group-descriptor block, 1 descriptor.
  EXPECT_EQ(fs.journal().logPagesFor(t), 2 + 3 + 1 + 1);
}

// --- the whole kernel ---

Scenario hundredDd(const std::string& fs) {
  Scenario s;
  s.durationS = 30;
  s.machine.memoryMiB = 4096;
  s.machine.cpus = 4;
  s.machine.hz = 250;
  s.policy = "perbdi-2.6.24";
  s.devices[0].writeMBps = 58.7;
  s.devices[0].fileSystem = fs;
  TaskSpec dd;
  dd.count = 100;
  dd.fileMiB = 1 << 20;
  dd.loop = false;
  s.tasks = {dd};
  return s;
}

TEST(FileSystemKernel, DelayedAllocationWithManyFilesMakesSmallerRequestsAndMoreSeeks) {
  Simulator none(hundredDd("")), xfs(hundredDd("xfs"));
  none.run();
  xfs.run();
  // Without a file system every request is the full max_sectors_kb; with XFS's delayed
  // allocation the extents end where each file's dirty range ended, and requests with them.
  EXPECT_GT(none.summary().avgRequestKiB, 500);
  EXPECT_EQ(none.summary().fsExtents, 0);
  EXPECT_GT(xfs.summary().fsExtents, 100);
  EXPECT_LT(xfs.summary().avgRequestKiB, none.summary().avgRequestKiB - 5);
  EXPECT_GT(xfs.summary().seeksPerS, none.summary().seeksPerS);
  EXPECT_GT(xfs.summary().deviceWriteKBps, 0.5 * none.summary().deviceWriteKBps);
}

Scenario rtReaderUnderWriteback(const std::string& options, const std::string& elevator,
                                const std::string& policy = "legacy-2.6.0-rt-break") {
  Scenario s;
  s.durationS = 120;
  s.machine.memoryMiB = 512;
  s.machine.cpus = 1;
  s.machine.hz = 1000;
  s.machine.allocator = "2.6.0";
  s.policy = policy;
  s.vm.dirtyRatio = 40;
  s.vm.dirtyBackgroundRatio = 10;
  s.devices[0].writeMBps = 30;
  s.devices[0].maxRequestKiB = 128;
  s.devices[0].fileSystem = "ext3";
  s.devices[0].mountOptions = options;
  s.devices[0].elevator = elevator;
  TaskSpec heavy;
  heavy.name = "heavy";
  heavy.count = 2;
  heavy.fileMiB = 256;
  heavy.copyMBps = 140;
  TaskSpec rt;
  rt.name = "rt";
  rt.sched = SchedClass::Fifo;
  rt.rtPriority = 50;
  rt.fileMiB = 16;
  rt.blockKiB = 16384;
  rt.copyMBps = 140;
  rt.thinkMs = 0;
  rt.readKiB = 256;
  rt.startS = 2;
  s.tasks = {heavy, rt};
  return s;
}

TaskStats rtOf(const std::vector<TaskStats>& stats) {
  return *std::find_if(stats.begin(), stats.end(),
                       [](const TaskStats& t) { return t.info.name == "rt"; });
}

TEST(FileSystemKernel, AtimeUpdatesWaitForTheCommitAndNoatimeNever) {
  Simulator atime(rtReaderUnderWriteback("atime", "")),
      noatime(rtReaderUnderWriteback("noatime", ""));
  atime.run();
  noatime.run();
  EXPECT_GT(atime.summary().journalCommits, 2);
  const TaskStats a = rtOf(atime.taskStats());
  const TaskStats n = rtOf(noatime.taskStats());
  EXPECT_GT(a.reads, 5);
  EXPECT_GT(a.journalWaits, 0);
  EXPECT_GT(a.journalWaitS, 0);
  // noatime: no atime update waits; what is left are write()'s own handles (Eq. 63).
  EXPECT_DOUBLE_EQ(n.journalWaitS, n.writeHandleWaitS);
  EXPECT_GT(a.journalWaitS - a.writeHandleWaitS, 0);
  EXPECT_GT(n.reads, 5);
}

// A commit's lock-down (T_LOCKED) waits for the handles still open: a writepage() blocked at a
// full request queue holds one, and write()s needing a handle meanwhile wait
// (start_this_handle(), docs/model.md Eq. 63-64).
double writeHandleWaits(const Simulator& sim) {
  double s = 0;
  for (const TaskStats& t : sim.taskStats()) {
    EXPECT_LE(t.writeHandleWaitS, t.journalWaitS + 1e-12) << t.info.name;
    s += t.writeHandleWaitS;
  }
  return s;
}

TEST(FileSystemKernel, WritesWaitForACommitsLockDownBehindABlockedWritepage) {
  // ext3 under 2.6.0: throttled dirtiers write back themselves and block for request slots
  // inside ext3_ordered_writepage(), which holds a handle; every write() page takes one.
  Simulator ext3(rtReaderUnderWriteback("noatime", ""));
  ext3.run();
  EXPECT_GT(ext3.summary().journalCommits, 2);
  EXPECT_GT(writeHandleWaits(ext3), 0);
  // The same run without a journal has nothing to wait for.
  Scenario plain = rtReaderUnderWriteback("", "");
  plain.devices[0].fileSystem = "";
  Simulator none(plain);
  none.run();
  EXPECT_EQ(writeHandleWaits(none), 0);
}

TEST(FileSystemKernel, Ext4MtimeUpdatesWaitWhileTheFlusherHoldsAHandle) {
  // ioless (6.x): the flusher sleeps for a request slot inside ext4_writepages() with its
  // handle open; write()'s file_update_time() takes a handle at most once per jiffy.
  Scenario s = rtReaderUnderWriteback("noatime", "", "ioless");
  s.devices[0].fileSystem = "ext4";
  Simulator ext4(s);
  ext4.run();
  EXPECT_GT(ext4.summary().journalCommits, 2);
  EXPECT_GT(writeHandleWaits(ext4), 0);
}

TEST(FileSystemKernel, DeadlinePutsReadsBeforeQueuedWrites) {
  // A 2.6.32+ flusher sleeps for a request slot, so the queue stays full of writes.
  Simulator fifo(rtReaderUnderWriteback("noatime", "fifo", "perbdi-2.6.24")),
      deadline(rtReaderUnderWriteback("noatime", "deadline", "perbdi-2.6.24"));
  fifo.run();
  deadline.run();
  const TaskStats f = rtOf(fifo.taskStats());
  const TaskStats d = rtOf(deadline.taskStats());
  ASSERT_GT(f.reads, 0);
  ASSERT_GT(d.reads, 0);
  EXPECT_LT(d.readMsP50, 0.5 * f.readMsP50);
}

TEST(FileSystemKernel, FsyncWaitsForACommitEveryRun) {
  Scenario s;
  s.durationS = 20;
  s.devices[0].fileSystem = "ext4";
  TaskSpec w;
  w.fileMiB = 8;
  w.fsync = true;
  s.tasks = {w};
  Simulator sim(s);
  sim.run();
  const TaskStats t = sim.taskStats().at(0);
  EXPECT_GT(t.runsCompleted, 2);
  EXPECT_GE(t.journalWaits, t.runsCompleted);
  EXPECT_GT(t.journalWaitS, 0);
}

TEST(FileSystemKernel, ABadFileSystemKeyIsRefusedWithItsPath) {
  Scenario s;
  s.devices[0].fileSystem = "btrfs";
  try {
    Simulator sim(s);
    FAIL() << "accepted";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.key(), "device.fileSystem");
    EXPECT_NE(std::string(e.what()).find("btrfs"), std::string::npos);
  }
}

}  // namespace
}  // namespace throttlelab::engine

namespace throttlelab::engine {
namespace {

TEST(Elevator, DeadlineDispatchesAQueuedReadBeforeQueuedWritesAndFifoDoesNot) {
  for (const char* elevator : {"fifo", "deadline"}) {
    DeviceConfig c;
    c.elevator = elevator;
    c.maxRequestKiB = 4;  // one page per request
    BlockDevice dev(c, 1);
    SimTime now{};
    dev.submit(0, 0, 20, now);  // 20 write requests, the first in service at once
    dev.submitOther(kReadFile, 1000, 1, true, 7, now);
    int before = 0;
    for (;;) {
      now = *dev.nextCompletion();
      const IoRequest r = dev.completeCurrent(now);
      if (r.read) break;
      ++before;
    }
    if (std::string(elevator) == "fifo")
      EXPECT_EQ(before, 20);
    else
      EXPECT_LE(before, 16) << "the read waits at most for the write batch in progress";
  }
}

}  // namespace
}  // namespace throttlelab::engine
