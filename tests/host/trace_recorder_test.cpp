// SPDX-License-Identifier: GPL-3.0-or-later
// The tracefs recorder against a fake tracefs in a temporary directory: enable files and
// tracing_on as plain files, trace_pipe as a FIFO the test writes into. Nothing here needs root
// or touches the real kernel.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <thread>

#include "throttlelab/host/trace_recorder.h"

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using throttlelab::host::recordTraceToFile;
using throttlelab::host::TraceRecorder;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spit(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}

// Two real lines of this kernel (tests/data/kernel-6.18/ftrace-10-dd.txt).
const std::string kLine1 =
    "              dd-28896   [001] .....  8749.324696: global_dirty_state: dirty=25 "
    "writeback=0 bg_thresh=8192 thresh=16384 limit=16384 dirtied=33447784 written=28977124\n";
const std::string kLine2 =
    "              dd-28897   [001] .N...  8749.339666: balance_dirty_pages: bdi 254:0: "
    "limit=16384 setpoint=14336 dirty=12563 wb_setpoint=14335 wb_dirty=12563 "
    "dirty_ratelimit=141948 task_ratelimit=234268 dirtied=256 dirtied_pause=64 paused=0 "
    "pause=0 period=4 think=4 cgroup_ino=1\n";

/// A directory that looks like a mounted tracefs to the recorder.
class FakeTracefs {
 public:
  static constexpr const char* kEvents[] = {"writeback/global_dirty_state",
                                            "writeback/bdi_dirty_ratelimit",
                                            "writeback/balance_dirty_pages"};
  FakeTracefs() {
    char tmpl[] = "/tmp/throttlelab-tracefs-XXXXXX";
    m_root = ::mkdtemp(tmpl);
    for (const char* e : kEvents) {
      fs::create_directories(m_root / "events" / e);
      spit(m_root / "events" / e / "enable", "0\n");
      spit(m_root / "events" / e / "filter", "none\n");
    }
    // An event the recorder must not touch, and files it has no business writing.
    fs::create_directories(m_root / "events/writeback/writeback_dirty_folio");
    spit(m_root / "events/writeback/writeback_dirty_folio/enable", "0\n");
    spit(m_root / "events/enable", "0\n");
    spit(m_root / "tracing_on", "1\n");
    spit(m_root / "buffer_size_kb", "1410\n");
    spit(m_root / "trace", "# tracer: nop\n");
    EXPECT_EQ(::mkfifo((m_root / "trace_pipe").c_str(), 0600), 0);
  }
  ~FakeTracefs() { fs::remove_all(m_root); }
  FakeTracefs(const FakeTracefs&) = delete;
  FakeTracefs& operator=(const FakeTracefs&) = delete;

  const fs::path& root() const { return m_root; }
  fs::path enable(const std::string& event) const { return m_root / "events" / event / "enable"; }
  TraceRecorder::Options options() const {
    TraceRecorder::Options o;
    o.tracefsRoot = m_root.string();
    o.mountIfNeeded = false;  // a test must never mount anything
    return o;
  }
  /// Every regular file's content, to compare before and after.
  std::map<std::string, std::string> snapshot() const {
    std::map<std::string, std::string> m;
    for (const auto& e : fs::recursive_directory_iterator(m_root)) {
      if (e.is_regular_file())
        m[e.path().string()] = slurp(e.path());
      else if (!e.is_directory())
        m[e.path().string()] = "<special>";
    }
    return m;
  }
  /// Opens trace_pipe for writing; only succeeds while the recorder has it open for reading.
  int openWriter() const {
    return ::open((m_root / "trace_pipe").c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
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

TEST(TraceRecorder, StartEnablesTheEventsAndTracing) {
  FakeTracefs fake;
  spit(fake.root() / "tracing_on", "0\n");
  TraceRecorder r(fake.options());
  EXPECT_FALSE(r.isRecording());
  ASSERT_EQ(r.start(), "");
  EXPECT_TRUE(r.isRecording());
  for (const char* e : FakeTracefs::kEvents) EXPECT_EQ(slurp(fake.enable(e)), "1\n") << e;
  EXPECT_EQ(slurp(fake.root() / "tracing_on"), "1\n");
  EXPECT_EQ(slurp(fake.enable("writeback/writeback_dirty_folio")), "0\n");
  EXPECT_EQ(slurp(fake.root() / "events/enable"), "0\n");
  EXPECT_NE(r.start(), "");  // a second start while recording is refused
  EXPECT_TRUE(r.isRecording());
}

TEST(TraceRecorder, StopPutsEveryFileBack) {
  FakeTracefs fake;
  spit(fake.root() / "tracing_on", "0\n");
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
  FakeTracefs fake;
  spit(fake.root() / "tracing_on", "0\n");
  const auto before = fake.snapshot();
  auto options = fake.options();
  // Last, so a recorder that enabled events before checking them all would be caught.
  options.events.push_back("writeback/no_such_event");
  TraceRecorder r(options);
  const std::string error = r.start();
  EXPECT_NE(error.find("writeback:no_such_event"), std::string::npos) << error;
  EXPECT_FALSE(r.isRecording());
  EXPECT_EQ(fake.snapshot(), before);
  EXPECT_LT(fake.openWriter(), 0) << "trace_pipe must not be left open";
  EXPECT_EQ(r.stop(), "");
  EXPECT_EQ(fake.snapshot(), before);
}

TEST(TraceRecorder, TheDestructorRestores) {
  FakeTracefs fake;
  spit(fake.root() / "tracing_on", "0\n");
  const auto before = fake.snapshot();
  {
    TraceRecorder r(fake.options());
    ASSERT_EQ(r.start(), "");
    EXPECT_EQ(slurp(fake.root() / "tracing_on"), "1\n");
  }
  EXPECT_EQ(fake.snapshot(), before);
  EXPECT_LT(fake.openWriter(), 0) << "trace_pipe must be closed";
}

TEST(TraceRecorder, AnEventThatWasAlreadyOnStaysOn) {
  FakeTracefs fake;
  spit(fake.enable("writeback/balance_dirty_pages"), "1\n");
  const auto before = fake.snapshot();
  TraceRecorder r(fake.options());
  ASSERT_EQ(r.start(), "");
  EXPECT_EQ(r.stop(), "");
  EXPECT_EQ(slurp(fake.enable("writeback/balance_dirty_pages")), "1\n");
  EXPECT_EQ(slurp(fake.enable("writeback/global_dirty_state")), "0\n");
  EXPECT_EQ(slurp(fake.root() / "tracing_on"), "1\n");
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

TEST(RecordTraceToFile, WritesTheHeaderAndTheLinesThenRestores) {
  FakeTracefs fake;
  spit(fake.root() / "tracing_on", "0\n");
  const auto before = fake.snapshot();
  TempDir out;
  const fs::path file = out.path() / "host.trace";

  // A SIGINT handler of the caller's, which must be back afterwards.
  struct sigaction mine {
  }, old{};
  mine.sa_handler = previousHandler;
  sigemptyset(&mine.sa_mask);
  ASSERT_EQ(::sigaction(SIGINT, &mine, &old), 0);

  // The writer blocks in open() until the recorder opens trace_pipe, writes, and then stops
  // the recording with SIGINT, so the test needs no timing: the duration is only a bound.
  std::thread writer([&] {
    const int w = ::open((fake.root() / "trace_pipe").c_str(), O_WRONLY | O_CLOEXEC);
    ASSERT_GE(w, 0);
    writeAll(w, kLine1 + kLine2);
    ::close(w);
    ::kill(::getpid(), SIGINT);
  });
  std::ostringstream msg, err;
  const int rc = recordTraceToFile(file.string(), 60, msg, err, fake.options());
  writer.join();
  EXPECT_EQ(rc, 0) << err.str();
  EXPECT_TRUE(err.str().empty()) << err.str();

  const std::string text = slurp(file);
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
  EXPECT_NE(msg.str().find("2 events"), std::string::npos) << msg.str();
  EXPECT_NE(msg.str().find(std::to_string(body.size()) + " bytes"), std::string::npos) << msg.str();
  EXPECT_NE(msg.str().find("SIGINT"), std::string::npos) << msg.str();

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
      slurp(fs::path(THROTTLELAB_TEST_DATA) / "kernel-6.18/ftrace-100-dd.txt");
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
  std::thread writer([&] {
    const int w = ::open((fake.root() / "trace_pipe").c_str(), O_WRONLY | O_CLOEXEC);
    ASSERT_GE(w, 0);
    for (std::size_t at = 0; at < body.size(); at += 777) writeAll(w, body.substr(at, 777));
    ::close(w);
    ::kill(::getpid(), SIGTERM);
  });
  std::ostringstream msg, err;
  const int rc = recordTraceToFile(file.string(), 60, msg, err, fake.options());
  writer.join();
  ASSERT_EQ(rc, 0) << err.str();
  const std::string text = slurp(file);
  const auto firstEvent = text.find("\n ") + 1;
  EXPECT_EQ(text.substr(firstEvent), body);
  EXPECT_NE(text.find("entries-written: " + std::to_string(expectedLines) + "/"),
            std::string::npos);
  EXPECT_NE(msg.str().find(std::to_string(expectedLines) + " events"), std::string::npos)
      << msg.str();
  EXPECT_NE(msg.str().find("SIGTERM"), std::string::npos) << msg.str();
}

TEST(RecordTraceToFile, AnExistingFileIsUntouchedWhenRecordingFails) {
  FakeTracefs fake;
  const auto before = fake.snapshot();
  TempDir out;
  const fs::path file = out.path() / "precious.trace";
  spit(file, "an earlier recording\n");
  auto options = fake.options();
  options.events.push_back("writeback/no_such_event");
  std::ostringstream msg, err;
  EXPECT_EQ(recordTraceToFile(file.string(), 1, msg, err, options), 1);
  EXPECT_NE(err.str().find("no_such_event"), std::string::npos) << err.str();
  EXPECT_TRUE(msg.str().empty());
  EXPECT_EQ(slurp(file), "an earlier recording\n");
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
