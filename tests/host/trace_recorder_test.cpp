// SPDX-License-Identifier: GPL-3.0-or-later
// The tracefs recorder against a fake tracefs in a temporary directory: enable files and
// tracing_on as plain files, trace_pipe as a FIFO the test writes into. A fake with an
// `instances/` directory builds, through the recorder's mkdir/rmdir hooks, the tree the kernel
// would create for a new instance and refuses to remove one whose trace_pipe is open, as the
// kernel does. A fake without it exercises the top-level fallback. Nothing here needs root or
// touches the real kernel.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "file_text.h"
#include "throttlelab/host/trace_recorder.h"

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using throttlelab::host::recordTraceToFile;
using throttlelab::host::TraceRecorder;

namespace {

using throttlelab::test::readFile;
using throttlelab::test::writeFile;

// Two real lines of this kernel (tests/data/kernel-6.18/ftrace-10-dd.txt).
const std::string kLine1 =
    "              dd-28896   [001] .....  8749.324696: global_dirty_state: dirty=25 "
    "writeback=0 bg_thresh=8192 thresh=16384 limit=16384 dirtied=33447784 written=28977124\n";
const std::string kLine2 =
    "              dd-28897   [001] .N...  8749.339666: balance_dirty_pages: bdi 254:0: "
    "limit=16384 setpoint=14336 dirty=12563 wb_setpoint=14335 wb_dirty=12563 "
    "dirty_ratelimit=141948 task_ratelimit=234268 dirtied=256 dirtied_pause=64 paused=0 "
    "pause=0 period=4 think=4 cgroup_ino=1\n";

/// The files tracefs has at its top level and in every instance, as the recorder sees them.
void buildTracefsTree(const fs::path& dir, const char* const* events, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    fs::create_directories(dir / "events" / events[i]);
    writeFile(dir / "events" / events[i] / "enable", "0\n");
    writeFile(dir / "events" / events[i] / "filter", "none\n");
  }
  // An event the recorder must not touch, and files it has no business writing.
  fs::create_directories(dir / "events/writeback/writeback_dirty_folio");
  writeFile(dir / "events/writeback/writeback_dirty_folio/enable", "0\n");
  writeFile(dir / "events/enable", "0\n");
  writeFile(dir / "tracing_on", "1\n");
  writeFile(dir / "buffer_size_kb", "1410\n");
  writeFile(dir / "trace", "# tracer: nop\n");
  EXPECT_EQ(::mkfifo((dir / "trace_pipe").c_str(), 0600), 0);
}

/// True while someone has the FIFO open for reading (only then does a non-blocking open for
/// writing succeed).
bool fifoHasReader(const fs::path& fifo) {
  const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

/// A directory that looks like a mounted tracefs to the recorder.
class FakeTracefs {
 public:
  static constexpr const char* kEvents[] = {"writeback/global_dirty_state",
                                            "writeback/bdi_dirty_ratelimit",
                                            "writeback/balance_dirty_pages"};
  enum class Tracing { On, Off };
  /// `withInstances`: has an instances/ directory, in which the recorder's mkdir hook creates
  /// what the kernel would. `tracing`: what tracing_on reads before the recorder starts.
  explicit FakeTracefs(bool withInstances = false, Tracing tracing = Tracing::On) {
    char tmpl[] = "/tmp/throttlelab-tracefs-XXXXXX";
    m_root = ::mkdtemp(tmpl);
    buildTracefsTree(m_root, kEvents, std::size(kEvents));
    if (withInstances) fs::create_directory(m_root / "instances");
    if (tracing == Tracing::Off) writeFile(m_root / "tracing_on", "0\n");
  }
  ~FakeTracefs() { fs::remove_all(m_root); }
  FakeTracefs(const FakeTracefs&) = delete;
  FakeTracefs& operator=(const FakeTracefs&) = delete;

  const fs::path& root() const { return m_root; }
  fs::path enable(const std::string& event) const { return m_root / "events" / event / "enable"; }
  /// Where this process's first recorder puts its instance.
  fs::path ownInstance() const {
    return m_root / "instances" / ("throttlelab-" + std::to_string(::getpid()));
  }
  TraceRecorder::Options options() {
    TraceRecorder::Options o;
    o.tracefsRoot = m_root.string();
    o.mountIfNeeded = false;  // a test must never mount anything
    o.makeInstanceDir = [this](const std::string& path) { return makeInstance(path); };
    o.removeInstanceDir = [this](const std::string& path) { return removeInstance(path); };
    return o;
  }
  /// options() and an event this tracefs does not have, last, so that a recorder that enabled
  /// events before checking them all would be caught.
  TraceRecorder::Options optionsWithAMissingEvent() {
    TraceRecorder::Options o = options();
    o.events.push_back("writeback/no_such_event");
    return o;
  }

  /// What mkdir(2) in tracefs's instances/ does: a fresh instance tree, or an errno.
  int makeInstance(const std::string& path) {
    ++makeCalls;
    if (mkdirError != 0) return mkdirError;
    if (::mkdir(path.c_str(), 0750) != 0) return errno;
    buildTracefsTree(path, kEvents, std::size(kEvents));
    if (afterMake) afterMake(path);
    return 0;
  }
  /// What rmdir(2) of an instance does: removes the whole tree, but not while its trace_pipe
  /// is open (EBUSY), nor while `refuseRemovals` is positive.
  int removeInstance(const std::string& path) {
    ++removeCalls;
    if (!fs::exists(path)) return ENOENT;
    if (refuseRemovals > 0) {
      --refuseRemovals;
      return EBUSY;
    }
    if (fifoHasReader(fs::path(path) / "trace_pipe")) return EBUSY;
    fs::remove_all(path);
    return 0;
  }

  int mkdirError = 0;      ///< make mkdir fail with this errno
  int refuseRemovals = 0;  ///< refuse this many removals with EBUSY
  int makeCalls = 0, removeCalls = 0;
  std::function<void(const std::string&)> afterMake;

  /// Every file's and directory's content, to compare before and after; `skip`'s subtree is
  /// left out.
  std::map<std::string, std::string> snapshot(const fs::path& skip = {}) const {
    std::map<std::string, std::string> m;
    forEachEntry(skip, [&](const fs::directory_entry& e) {
      if (e.is_regular_file())
        m[e.path().string()] = readFile(e.path());
      else if (e.is_directory())
        m[e.path().string()] = "<dir>";
      else
        m[e.path().string()] = "<special>";
    });
    return m;
  }
  /// Every entry's modification time in ns: a file written, even with its own content, differs.
  std::map<std::string, std::int64_t> mtimes(const fs::path& skip = {}) const {
    std::map<std::string, std::int64_t> m;
    forEachEntry(skip, [&](const fs::directory_entry& e) {
      struct stat st {};
      if (::lstat(e.path().c_str(), &st) == 0 && !e.is_directory())
        m[e.path().string()] = st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    });
    return m;
  }
  /// Calls `f` with every entry below the root but `skip` and its subtree.
  template <class F>
  void forEachEntry(const fs::path& skip, F f) const {
    for (auto it = fs::recursive_directory_iterator(m_root); it != fs::end(it); ++it) {
      if (!skip.empty() && it->path() == skip)
        it.disable_recursion_pending();
      else
        f(*it);
    }
  }
  /// Opens trace_pipe for writing; only succeeds while the recorder has it open for reading.
  int openWriter(const fs::path& dir = {}) const {
    return ::open(((dir.empty() ? m_root : dir) / "trace_pipe").c_str(),
                  O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  }
  std::set<std::string> instances() const {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(m_root / "instances"))
      names.insert(e.path().filename().string());
    return names;
  }

 private:
  fs::path m_root;
};

void writeAll(int fd, const std::string& s) {
  ASSERT_EQ(::write(fd, s.data(), s.size()), static_cast<ssize_t>(s.size()));
}

/// Reads until `want` bytes arrived; a generous bound only so a broken recorder fails the test
/// instead of hanging it (no timing is asserted).
std::string readAtLeast(TraceRecorder& r, std::size_t want) {
  std::string out;
  for (int i = 0; i < 100 && out.size() < want; ++i) r.read(out, 100ms);
  return out;
}

}  // namespace

// --- the top-level fallback: a tracefs without instances/ ------------------------------------

/// Starts `r`, whose options name a missing event: start() must fail naming it and leave
/// nothing recording. Returns start()'s message.
std::string expectTheMissingEventRefused(TraceRecorder& r) {
  const std::string error = r.start();
  EXPECT_NE(error.find("writeback:no_such_event"), std::string::npos) << error;
  EXPECT_FALSE(r.isRecording());
  return error;
}

TEST(TraceRecorder, StartEnablesTheEventsAndTracing) {
  FakeTracefs fake(false, FakeTracefs::Tracing::Off);
  TraceRecorder r(fake.options());
  EXPECT_FALSE(r.isRecording());
  EXPECT_EQ(r.mode(), TraceRecorder::Mode::None);
  ASSERT_EQ(r.start(), "");
  EXPECT_TRUE(r.isRecording());
  EXPECT_EQ(r.mode(), TraceRecorder::Mode::TopLevel);
  EXPECT_NE(r.modeDescription().find("top-level"), std::string::npos) << r.modeDescription();
  EXPECT_NE(r.modeDescription().find("instances does not exist"), std::string::npos)
      << r.modeDescription();
  EXPECT_EQ(fake.makeCalls, 0);
  for (const char* e : FakeTracefs::kEvents) EXPECT_EQ(readFile(fake.enable(e)), "1\n") << e;
  EXPECT_EQ(readFile(fake.root() / "tracing_on"), "1\n");
  EXPECT_EQ(readFile(fake.enable("writeback/writeback_dirty_folio")), "0\n");
  EXPECT_EQ(readFile(fake.root() / "events/enable"), "0\n");
  EXPECT_NE(r.start(), "");  // a second start while recording is refused
  EXPECT_TRUE(r.isRecording());
}

TEST(TraceRecorder, StopPutsEveryFileBack) {
  FakeTracefs fake(false, FakeTracefs::Tracing::Off);
  const auto before = fake.snapshot();
  TraceRecorder r(fake.options());
  ASSERT_EQ(r.start(), "");
  ASSERT_NE(fake.snapshot(), before);
  EXPECT_EQ(r.stop(), "");
  EXPECT_FALSE(r.isRecording());
  EXPECT_EQ(fake.snapshot(), before);
  EXPECT_EQ(r.stop(), "");  // idempotent
  EXPECT_EQ(fake.snapshot(), before);
}

TEST(TraceRecorder, ReadReturnsCompleteLinesOnly) {
  FakeTracefs fake;
  TraceRecorder r(fake.options());
  ASSERT_EQ(r.start(), "");
  const int w = fake.openWriter();
  ASSERT_GE(w, 0) << "the recorder must hold trace_pipe open for reading";
  const std::string partial = kLine2.substr(0, 40);
  writeAll(w, kLine1 + kLine2 + partial);
  std::string out = readAtLeast(r, kLine1.size() + kLine2.size());
  EXPECT_EQ(out, kLine1 + kLine2);  // the partial third line is held back
  writeAll(w, kLine2.substr(40));
  std::string rest = readAtLeast(r, kLine2.size());
  EXPECT_EQ(rest, kLine2);  // completed, and nothing lost or doubled
  std::string nothing;
  EXPECT_EQ(r.read(nothing, 0ms), 0u);
  EXPECT_TRUE(nothing.empty());
  ::close(w);
  EXPECT_EQ(r.read(nothing, 10ms), 0u);  // the writer left: no data, no hang, no crash
  EXPECT_EQ(r.stop(), "");
}

TEST(TraceRecorder, ReadAppendsAndCountsOnlyWhatItAdded) {
  FakeTracefs fake;
  TraceRecorder r(fake.options());
  ASSERT_EQ(r.start(), "");
  const int w = fake.openWriter();
  ASSERT_GE(w, 0);
  writeAll(w, kLine1);
  std::string out = "already here\n";
  std::size_t got = 0;
  for (int i = 0; i < 100 && got == 0; ++i) got = r.read(out, 100ms);
  EXPECT_EQ(got, kLine1.size());
  EXPECT_EQ(out, "already here\n" + kLine1);
  ::close(w);
}

TEST(TraceRecorder, AMissingEventFailsAndChangesNothing) {
  FakeTracefs fake(false, FakeTracefs::Tracing::Off);
  const auto before = fake.snapshot();
  TraceRecorder r(fake.optionsWithAMissingEvent());
  expectTheMissingEventRefused(r);
  EXPECT_EQ(fake.snapshot(), before);
  EXPECT_LT(fake.openWriter(), 0) << "trace_pipe must not be left open";
  EXPECT_EQ(r.stop(), "");
  EXPECT_EQ(fake.snapshot(), before);
}

TEST(TraceRecorder, TheDestructorRestores) {
  FakeTracefs fake(false, FakeTracefs::Tracing::Off);
  const auto before = fake.snapshot();
  {
    TraceRecorder r(fake.options());
    ASSERT_EQ(r.start(), "");
    EXPECT_EQ(readFile(fake.root() / "tracing_on"), "1\n");
  }
  EXPECT_EQ(fake.snapshot(), before);
  EXPECT_LT(fake.openWriter(), 0) << "trace_pipe must be closed";
}

TEST(TraceRecorder, AnEventThatWasAlreadyOnStaysOn) {
  FakeTracefs fake;
  writeFile(fake.enable("writeback/balance_dirty_pages"), "1\n");
  const auto before = fake.snapshot();
  TraceRecorder r(fake.options());
  ASSERT_EQ(r.start(), "");
  EXPECT_EQ(r.stop(), "");
  EXPECT_EQ(readFile(fake.enable("writeback/balance_dirty_pages")), "1\n");
  EXPECT_EQ(readFile(fake.enable("writeback/global_dirty_state")), "0\n");
  EXPECT_EQ(readFile(fake.root() / "tracing_on"), "1\n");
  EXPECT_EQ(fake.snapshot(), before);
}

TEST(TraceRecorder, AnUnmountedRootIsReportedWithoutMounting) {
  char tmpl[] = "/tmp/throttlelab-empty-XXXXXX";
  const fs::path empty = ::mkdtemp(tmpl);
  TraceRecorder::Options o;
  o.tracefsRoot = empty.string();
  o.mountIfNeeded = false;
  TraceRecorder r(o);
  const std::string error = r.start();
  EXPECT_NE(error.find("not mounted"), std::string::npos) << error;
  EXPECT_TRUE(fs::is_empty(empty));
  fs::remove_all(empty);
}

TEST(TraceRecorder, ReadWithoutStartReturnsNothing) {
  FakeTracefs fake;
  TraceRecorder r(fake.options());
  std::string out;
  EXPECT_EQ(r.read(out, 0ms), 0u);
  EXPECT_EQ(r.stop(), "");
}

// --- a private ftrace instance -------------------------------------------------------------

TEST(TraceRecorderInstance, RecordsInItsOwnInstanceWithoutTouchingTheTopLevel) {
  FakeTracefs fake(true, FakeTracefs::Tracing::Off);  // the fallback would switch this on
  const auto before = fake.snapshot();
  const auto beforeTimes = fake.mtimes();
  const fs::path inst = fake.ownInstance();
  TraceRecorder r(fake.options());
  ASSERT_EQ(r.start(), "");
  EXPECT_EQ(r.mode(), TraceRecorder::Mode::Instance);
  EXPECT_NE(r.modeDescription().find("private ftrace instance " + inst.string()), std::string::npos)
      << r.modeDescription();
  EXPECT_EQ(fake.makeCalls, 1);
  ASSERT_TRUE(fs::is_directory(inst));
  // The instance's events are on; nothing else in it, and nothing at the top level, changed.
  for (const char* e : FakeTracefs::kEvents) {
    EXPECT_EQ(readFile(inst / "events" / e / "enable"), "1\n") << e;
  }
  EXPECT_EQ(readFile(inst / "events/writeback/writeback_dirty_folio/enable"), "0\n");
  EXPECT_EQ(readFile(inst / "events/enable"), "0\n");
  EXPECT_EQ(fake.snapshot(inst), before);
  EXPECT_EQ(fake.mtimes(inst), beforeTimes) << "a top-level file was written";
  EXPECT_LT(fake.openWriter(), 0) << "the top-level trace_pipe must not be read";

  // It reads the instance's trace_pipe.
  const int w = fake.openWriter(inst);
  ASSERT_GE(w, 0) << "the recorder must hold the instance's trace_pipe open";
  writeAll(w, kLine1 + kLine2);
  EXPECT_EQ(readAtLeast(r, kLine1.size() + kLine2.size()), kLine1 + kLine2);
  ::close(w);

  EXPECT_EQ(r.stop(), "");
  EXPECT_FALSE(r.isRecording());
  EXPECT_FALSE(fs::exists(inst)) << "the instance must be removed";
  EXPECT_EQ(fake.snapshot(), before);
  EXPECT_EQ(fake.mtimes(), beforeTimes);
  EXPECT_EQ(r.stop(), "");  // idempotent
  EXPECT_EQ(r.mode(), TraceRecorder::Mode::Instance) << "the last recording's mode";
}

TEST(TraceRecorderInstance, TheDestructorRemovesTheInstance) {
  FakeTracefs fake(true);
  const auto before = fake.snapshot();
  {
    TraceRecorder r(fake.options());
    ASSERT_EQ(r.start(), "");
    ASSERT_TRUE(fs::is_directory(fake.ownInstance()));
  }
  EXPECT_FALSE(fs::exists(fake.ownInstance()));
  EXPECT_EQ(fake.snapshot(), before);
}

TEST(TraceRecorderInstance, AMissingEventRemovesTheInstance) {
  FakeTracefs fake(true);
  const auto before = fake.snapshot();
  const auto beforeTimes = fake.mtimes();
  TraceRecorder r(fake.optionsWithAMissingEvent());
  const std::string error = expectTheMissingEventRefused(r);
  EXPECT_NE(error.find(fake.ownInstance().string()), std::string::npos) << error;
  EXPECT_EQ(fake.makeCalls, 1);
  EXPECT_FALSE(fs::exists(fake.ownInstance()));
  EXPECT_EQ(fake.snapshot(), before);
  EXPECT_EQ(fake.mtimes(), beforeTimes);
  EXPECT_EQ(r.stop(), "");
}

TEST(TraceRecorderInstance, AnErrorAfterEnablingRemovesTheInstance) {
  FakeTracefs fake(true);
  const auto before = fake.snapshot();
  // The instance's tracing_on reads as off but cannot be written (even by root), so start()
  // fails after it has enabled the events.
  fake.afterMake = [](const std::string& path) {
    fs::remove(fs::path(path) / "tracing_on");
    fs::create_symlink("/proc/version", fs::path(path) / "tracing_on");
  };
  TraceRecorder r(fake.options());
  const std::string error = r.start();
  EXPECT_NE(error.find("cannot switch on " + (fake.ownInstance() / "tracing_on").string()),
            std::string::npos)
      << error;
  EXPECT_FALSE(r.isRecording());
  EXPECT_FALSE(fs::exists(fake.ownInstance()));
  EXPECT_EQ(fake.snapshot(), before);
}

TEST(TraceRecorderInstance, ARefusedRemovalIsReportedAndRetried) {
  FakeTracefs fake(true);
  const auto before = fake.snapshot();
  {
    TraceRecorder r(fake.options());
    ASSERT_EQ(r.start(), "");
    fake.refuseRemovals = 1;
    const std::string problem = r.stop();
    EXPECT_NE(problem.find("cannot remove the ftrace instance " + fake.ownInstance().string()),
              std::string::npos)
        << problem;
    EXPECT_TRUE(fs::exists(fake.ownInstance()));
    for (const char* e : FakeTracefs::kEvents) {  // disabled even though it stays for now
      EXPECT_EQ(readFile(fake.ownInstance() / "events" / e / "enable"), "0\n") << e;
    }
    fake.refuseRemovals = 1;
    EXPECT_NE(r.start(), "") << "start() retries the removal first, and says it failed";
    EXPECT_TRUE(fs::exists(fake.ownInstance()));
  }  // the destructor tries once more
  EXPECT_FALSE(fs::exists(fake.ownInstance()));
  EXPECT_EQ(fake.snapshot(), before);
}

TEST(TraceRecorderInstance, StaleInstancesOfDeadProcessesAreRemoved) {
  FakeTracefs fake(true);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(0);
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);  // reaped: this pid no longer exists
  const std::string dead = "throttlelab-" + std::to_string(child);
  const std::string live = "throttlelab-" + std::to_string(::getppid());
  const fs::path instances = fake.root() / "instances";
  for (const std::string& name :
       {dead, dead + "-2", live, std::string("someone-else"), std::string("throttlelab-x")}) {
    ASSERT_EQ(fake.makeInstance((instances / name).string()), 0) << name;
  }
  // One with this process's pid that no recorder here holds: an earlier process's.
  ASSERT_EQ(fake.makeInstance(fake.ownInstance().string()), 0);
  writeFile(fake.ownInstance() / "marker", "from an earlier run\n");
  const std::set<std::string> others{live, "someone-else", "throttlelab-x"};
  const auto othersBefore = fake.snapshot();

  TraceRecorder r(fake.options());
  ASSERT_EQ(r.start(), "");
  std::set<std::string> expected = others;
  expected.insert(fake.ownInstance().filename().string());
  EXPECT_EQ(fake.instances(), expected);
  EXPECT_FALSE(fs::exists(fake.ownInstance() / "marker")) << "a fresh instance, not the stale one";
  for (const std::string& name : {dead, dead + "-2"}) {
    EXPECT_NE(r.modeDescription().find(name), std::string::npos) << r.modeDescription();
  }
  EXPECT_EQ(r.stop(), "");
  EXPECT_EQ(fake.instances(), others);
  // The live process's instance and the foreign ones are exactly as they were.
  auto after = fake.snapshot();
  auto expectedAfter = othersBefore;
  std::erase_if(expectedAfter, [&](const auto& kv) {
    return kv.first.find("/instances/throttlelab-" + std::to_string(child)) != std::string::npos ||
           kv.first.find(fake.ownInstance().string()) == 0;
  });
  EXPECT_EQ(after, expectedAfter);
}

TEST(TraceRecorderInstance, TwoRecordersInOneProcessUseTwoInstances) {
  FakeTracefs fake(true);
  const auto before = fake.snapshot();
  TraceRecorder a(fake.options());
  TraceRecorder b(fake.options());
  ASSERT_EQ(a.start(), "");
  ASSERT_EQ(b.start(), "");  // must neither take nor sweep away a's instance
  const fs::path second = fake.ownInstance().string() + "-2";
  EXPECT_EQ(fake.instances(), (std::set<std::string>{fake.ownInstance().filename().string(),
                                                     second.filename().string()}));
  EXPECT_GE(fake.openWriter(fake.ownInstance()), 0);
  EXPECT_GE(fake.openWriter(second), 0);
  EXPECT_EQ(a.stop(), "");
  EXPECT_FALSE(fs::exists(fake.ownInstance()));
  EXPECT_TRUE(fs::exists(second));
  EXPECT_EQ(b.stop(), "");
  EXPECT_EQ(fake.snapshot(), before);
}

TEST(TraceRecorderInstance, FallsBackToTheTopLevelWhenInstancesAreUnavailable) {
  for (const int error : {EACCES, ENOENT, EOPNOTSUPP}) {
    SCOPED_TRACE(error);
    FakeTracefs fake(true, FakeTracefs::Tracing::Off);
    const auto before = fake.snapshot();
    fake.mkdirError = error;
    TraceRecorder r(fake.options());
    ASSERT_EQ(r.start(), "");
    EXPECT_EQ(r.mode(), TraceRecorder::Mode::TopLevel);
    EXPECT_NE(r.modeDescription().find("top-level trace buffer"), std::string::npos)
        << r.modeDescription();
    EXPECT_NE(r.modeDescription().find(std::strerror(error)), std::string::npos)
        << r.modeDescription();
    for (const char* e : FakeTracefs::kEvents) EXPECT_EQ(readFile(fake.enable(e)), "1\n") << e;
    EXPECT_EQ(readFile(fake.root() / "tracing_on"), "1\n");
    EXPECT_GE(fake.openWriter(), 0) << "the top-level trace_pipe is read";
    EXPECT_EQ(r.stop(), "");
    EXPECT_EQ(fake.snapshot(), before) << "the fallback restores the top level";
    EXPECT_TRUE(fake.instances().empty());
  }
}

TEST(TraceRecorderInstance, OtherMkdirErrorsFailWithoutFallingBack) {
  FakeTracefs fake(true);
  const auto before = fake.snapshot();
  const auto beforeTimes = fake.mtimes();
  fake.mkdirError = ENOSPC;
  TraceRecorder r(fake.options());
  const std::string error = r.start();
  EXPECT_NE(error.find("cannot create the ftrace instance " + fake.ownInstance().string()),
            std::string::npos)
      << error;
  EXPECT_FALSE(r.isRecording());
  EXPECT_EQ(r.mode(), TraceRecorder::Mode::None);
  EXPECT_EQ(fake.snapshot(), before);
  EXPECT_EQ(fake.mtimes(), beforeTimes);
}

// --- recordTraceToFile -------------------------------------------------------------------

namespace {

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/throttlelab-out-XXXXXX";
    m_dir = ::mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(m_dir); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return m_dir; }
  std::size_t entries() const {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(m_dir), {}));
  }

 private:
  fs::path m_dir;
};

int g_previousHandlerHits = 0;
extern "C" void previousHandler(int) {
  ++g_previousHandlerHits;
}

}  // namespace

/// What recordTraceToFile returned and printed.
struct Recorded {
  int rc = -1;
  std::string msg, err;
};

Recorded record(const fs::path& file, double seconds, const TraceRecorder::Options& options) {
  std::ostringstream msg, err;
  Recorded r;
  r.rc = recordTraceToFile(file.string(), seconds, msg, err, options);
  r.msg = msg.str();
  r.err = err.str();
  return r;
}

/// Records into `file` from `fake` while a writer thread, once the recorder has opened the
/// trace_pipe that `pipe()` names (it blocks in open() until then, so the test needs no
/// timing: the duration is only a bound), writes `text` in pieces of `chunk` bytes and then
/// stops the recording with `signal`. `whileOpen` runs in the writer once the pipe is open.
Recorded recordWhileWriting(
    const fs::path& file, FakeTracefs& fake, const std::function<fs::path()>& pipe,
    const std::string& text, int signal, std::size_t chunk = std::string::npos,
    const std::function<void()>& whileOpen = [] {}) {
  std::thread writer([&] {
    const int w = ::open(pipe().c_str(), O_WRONLY | O_CLOEXEC);
    ASSERT_GE(w, 0);
    whileOpen();
    for (std::size_t at = 0; at < text.size(); at += chunk) writeAll(w, text.substr(at, chunk));
    ::close(w);
    ::kill(::getpid(), signal);
  });
  const Recorded r = record(file, 60, fake.options());
  writer.join();
  return r;
}

/// Records into `file` with an event `fake` does not have: the run fails (1), naming it.
Recorded recordWithAMissingEvent(FakeTracefs& fake, const fs::path& file) {
  const Recorded r = record(file, 1, fake.optionsWithAMissingEvent());
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("no_such_event"), std::string::npos) << r.err;
  return r;
}

TEST(RecordTraceToFile, WritesTheHeaderAndTheLinesThenRestores) {
  FakeTracefs fake(false, FakeTracefs::Tracing::Off);
  const auto before = fake.snapshot();
  TempDir out;
  const fs::path file = out.path() / "host.trace";

  // A SIGINT handler of the caller's, which must be back afterwards.
  struct sigaction mine {
  }, old{};
  mine.sa_handler = previousHandler;
  sigemptyset(&mine.sa_mask);
  ASSERT_EQ(::sigaction(SIGINT, &mine, &old), 0);

  const auto [rc, msgText, errText] = recordWhileWriting(
      file, fake, [&] { return fake.root() / "trace_pipe"; }, kLine1 + kLine2, SIGINT);
  EXPECT_EQ(rc, 0) << errText;
  EXPECT_TRUE(errText.empty()) << errText;

  const std::string text = readFile(file);
  EXPECT_EQ(text.rfind("# tracer: nop\n", 0), 0u) << text;
  EXPECT_NE(text.find("entries-in-buffer/entries-written: 2/2"), std::string::npos) << text;
  const std::string body = kLine1 + kLine2;
  ASSERT_GE(text.size(), body.size());
  EXPECT_EQ(text.substr(text.size() - body.size()), body);
  // Header lines, then exactly the two event lines.
  std::istringstream lines(text);
  int events = 0;
  for (std::string l; std::getline(lines, l);) {
    if (!l.empty() && l[0] != '#') ++events;
  }
  EXPECT_EQ(events, 2);
  EXPECT_NE(msgText.find("2 events"), std::string::npos) << msgText;
  EXPECT_NE(msgText.find(std::to_string(body.size()) + " bytes"), std::string::npos) << msgText;
  EXPECT_NE(msgText.find("SIGINT"), std::string::npos) << msgText;
  EXPECT_EQ(msgText.rfind("recording writeback:global_dirty_state, ", 0), 0u) << msgText;
  EXPECT_NE(msgText.find("in the top-level trace buffer of " + fake.root().string()),
            std::string::npos)
      << msgText;

  EXPECT_EQ(fake.snapshot(), before);
  EXPECT_EQ(out.entries(), 1u) << "no temporary files left behind";

  struct sigaction now {};
  ASSERT_EQ(::sigaction(SIGINT, nullptr, &now), 0);
  EXPECT_EQ(now.sa_handler, &previousHandler) << "the caller's SIGINT handler is back";
  EXPECT_EQ(g_previousHandlerHits, 0) << "the SIGINT was the recorder's, not the caller's";
  ::sigaction(SIGINT, &old, nullptr);
}

TEST(RecordTraceToFile, AWholeRealTraceArrivesUnchangedInOddChunks) {
  // This kernel's 100-dd trace, far more than a pipe holds, fed in pieces that split lines
  // anywhere: the file must hold exactly those lines, each once, in order.
  const std::string fixture =
      readFile(fs::path(THROTTLELAB_TEST_DATA) / "kernel-6.18/ftrace-100-dd.txt");
  std::string body;
  std::istringstream in(fixture);
  std::int64_t expectedLines = 0;
  for (std::string l; std::getline(in, l);) {
    if (!l.empty() && l[0] != '#') {
      body += l + "\n";
      ++expectedLines;
    }
  }
  ASSERT_GT(body.size(), 256u * 1024);
  FakeTracefs fake;
  TempDir out;
  const fs::path file = out.path() / "big.trace";
  const auto [rc, msgText, errText] = recordWhileWriting(
      file, fake, [&] { return fake.root() / "trace_pipe"; }, body, SIGTERM, 777);
  ASSERT_EQ(rc, 0) << errText;
  const std::string text = readFile(file);
  const auto firstEvent = text.find("\n ") + 1;
  EXPECT_EQ(text.substr(firstEvent), body);
  EXPECT_NE(text.find("entries-written: " + std::to_string(expectedLines) + "/"),
            std::string::npos);
  EXPECT_NE(msgText.find(std::to_string(expectedLines) + " events"), std::string::npos) << msgText;
  EXPECT_NE(msgText.find("SIGTERM"), std::string::npos) << msgText;
}

TEST(RecordTraceToFile, ADeviceNodeIsWrittenInPlaceAndALinksTargetReplaced) {
  // As root the recording was renamed over whatever the path named: /dev/null became a file.
  TempDir out;
  const fs::path node = out.path() / "null";
  if (::mknod(node.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
    GTEST_SKIP() << "cannot make a device node here: " << std::strerror(errno);
  writeFile(out.path() / "target.trace", "old\n");
  fs::create_symlink("target.trace", out.path() / "link.trace");
  for (const fs::path& file : {node, out.path() / "link.trace"}) {
    SCOPED_TRACE(file.string());
    FakeTracefs fake;
    const auto r = recordWhileWriting(
        file, fake, [&] { return fake.root() / "trace_pipe"; }, kLine1, SIGTERM);
    EXPECT_EQ(r.rc, 0) << r.err;
  }
  struct stat st {};
  ASSERT_EQ(::lstat(node.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "the device node was replaced";
  EXPECT_EQ(st.st_rdev, makedev(1, 3));
  EXPECT_TRUE(fs::is_symlink(out.path() / "link.trace"));
  const std::string text = readFile(out.path() / "target.trace");
  EXPECT_EQ(text.substr(text.size() - kLine1.size()), kLine1);
  EXPECT_EQ(out.entries(), 3u) << "no temporary files left behind";
}

TEST(RecordTraceToFile, AnExistingFileIsUntouchedWhenRecordingFails) {
  FakeTracefs fake;
  const auto before = fake.snapshot();
  TempDir out;
  const fs::path file = out.path() / "precious.trace";
  writeFile(file, "an earlier recording\n");
  const Recorded r = recordWithAMissingEvent(fake, file);
  EXPECT_TRUE(r.msg.empty());
  EXPECT_EQ(readFile(file), "an earlier recording\n");
  EXPECT_EQ(out.entries(), 1u) << "no temporary files left behind";
  EXPECT_EQ(fake.snapshot(), before);
}

TEST(RecordTraceToFile, AnUnwritableTargetFailsBeforeTouchingTracing) {
  FakeTracefs fake;
  const auto before = fake.snapshot();
  std::ostringstream msg, err;
  EXPECT_EQ(recordTraceToFile("/nonexistent/dir/x.trace", 1, msg, err, fake.options()), 1);
  EXPECT_NE(err.str().find("/nonexistent/dir/x.trace"), std::string::npos) << err.str();
  EXPECT_EQ(fake.snapshot(), before);
}

TEST(RecordTraceToFile, ABadDurationIsRefused) {
  FakeTracefs fake;
  const auto before = fake.snapshot();
  TempDir out;
  std::ostringstream msg, err;
  for (const double d : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN()}) {
    EXPECT_EQ(recordTraceToFile((out.path() / "x").string(), d, msg, err, fake.options()), 2);
  }
  EXPECT_NE(err.str().find("duration"), std::string::npos);
  EXPECT_EQ(out.entries(), 0u);
  EXPECT_EQ(fake.snapshot(), before);
}

TEST(RecordTraceToFile, InAnInstanceSigintRemovesItAndLeavesTheTopLevelAlone) {
  FakeTracefs fake(true, FakeTracefs::Tracing::Off);
  const auto before = fake.snapshot();
  const auto beforeTimes = fake.mtimes();
  TempDir out;
  const fs::path file = out.path() / "host.trace";
  // The writer learns the instance from the mkdir hook, blocks in open() until the recorder
  // opens that instance's trace_pipe, writes, and stops the recording with SIGINT.
  std::promise<std::string> made;
  fake.afterMake = [&made](const std::string& path) { made.set_value(path); };
  std::set<std::string> listingWhileRecording;
  const auto [rc, msgText, errText] = recordWhileWriting(
      file, fake, [&] { return fs::path(made.get_future().get()) / "trace_pipe"; }, kLine1 + kLine2,
      SIGINT, std::string::npos, [&] { listingWhileRecording = fake.instances(); });
  EXPECT_EQ(rc, 0) << errText;
  EXPECT_TRUE(errText.empty()) << errText;
  EXPECT_EQ(listingWhileRecording, std::set<std::string>{fake.ownInstance().filename().string()});
  const std::string text = readFile(file);
  EXPECT_NE(text.find("entries-in-buffer/entries-written: 2/2"), std::string::npos) << text;
  EXPECT_EQ(text.substr(text.size() - (kLine1 + kLine2).size()), kLine1 + kLine2);
  EXPECT_NE(msgText.find("in the private ftrace instance " + fake.ownInstance().string()),
            std::string::npos)
      << msgText;
  EXPECT_NE(msgText.find("2 events"), std::string::npos) << msgText;
  EXPECT_NE(msgText.find("SIGINT"), std::string::npos) << msgText;
  EXPECT_FALSE(fs::exists(fake.ownInstance()));
  EXPECT_EQ(fake.snapshot(), before);
  EXPECT_EQ(fake.mtimes(), beforeTimes) << "a top-level file was written";
}

TEST(RecordTraceToFile, InAnInstanceAFailureRemovesIt) {
  FakeTracefs fake(true);
  const auto before = fake.snapshot();
  TempDir out;
  recordWithAMissingEvent(fake, out.path() / "x.trace");
  EXPECT_EQ(fake.makeCalls, 1);
  EXPECT_FALSE(fs::exists(fake.ownInstance()));
  EXPECT_EQ(fake.snapshot(), before);
  EXPECT_EQ(out.entries(), 0u);
}

TEST(RecordTraceToFile, InAnInstanceARefusedRemovalFailsTheRun) {
  FakeTracefs fake(true);
  TempDir out;
  // The recording ends by its (short) duration; every removal is refused, so the instance
  // stays and the run must say so.
  fake.refuseRemovals = 1000;
  std::ostringstream msg, err;
  EXPECT_EQ(recordTraceToFile((out.path() / "x.trace").string(), 0.05, msg, err, fake.options()),
            1);
  EXPECT_NE(err.str().find("tracing not fully restored: cannot remove the ftrace instance"),
            std::string::npos)
      << err.str();
  fake.refuseRemovals = 0;
}
