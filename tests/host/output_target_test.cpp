// SPDX-License-Identifier: GPL-3.0-or-later
// The output rules shared by the command line and the window (throttlelab/host/output_target.h):
// what each kind of path resolves to, conflicts, commits, discards and stale temporaries.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <variant>

#include "file_text.h"
#include "test_dir.h"
#include "throttlelab/host/output_target.h"

namespace throttlelab::host {
namespace {

namespace fs = std::filesystem;

using throttlelab::test::readFile;

class OutputTargetTest : public throttlelab::test::TestDirFixture {
 protected:
  OutputTargetTest() : TestDirFixture("throttlelab-output") {}

  std::string path(const std::string& name) const { return (m_dir / name).string(); }
  OutputTarget resolved(const std::string& name) const {
    auto r = resolveOutput(path(name));
    if (const auto* reason = std::get_if<std::string>(&r)) ADD_FAILURE() << name << ": " << *reason;
    return std::get_if<OutputTarget>(&r) ? std::get<OutputTarget>(r) : OutputTarget{};
  }
  std::string refused(const std::string& name) const {
    auto r = resolveOutput(path(name));
    return std::holds_alternative<std::string>(r) ? std::get<std::string>(r) : std::string();
  }
  static void write(OutputWriter& w, const std::string& text) {
    ASSERT_EQ(::write(w.fd(), text.data(), text.size()), static_cast<ssize_t>(text.size()));
  }
};

TEST_F(OutputTargetTest, ResolvesEachKindOfPath) {
  std::ofstream(m_dir / "file") << "x";
  fs::create_symlink("file", m_dir / "link");
  fs::create_symlink("link", m_dir / "link2");
  fs::create_symlink("missing/new", m_dir / "dangling");
  fs::create_directory(m_dir / "missing");
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0644), 0);
  fs::create_symlink("fifo", m_dir / "fifolink");
  fs::create_symlink("loop", m_dir / "loop");

  const OutputTarget file = resolved("file");
  EXPECT_FALSE(file.inPlace);
  EXPECT_TRUE(file.exists);
  EXPECT_EQ(file.path, path("file"));
  EXPECT_EQ(resolved("link2").path, path("file"));  // a chain of links ends at the file
  EXPECT_TRUE(resolved("link2").identity.sameFileAs(file.identity));
  EXPECT_EQ(resolved("dangling").path, path("missing/new"));
  EXPECT_FALSE(resolved("dangling").exists);
  EXPECT_TRUE(resolved("fifo").inPlace);
  EXPECT_TRUE(resolved("fifolink").inPlace);
  EXPECT_FALSE(resolved("new.csv").exists);
  EXPECT_EQ(resolved("new.csv").identity.normalised, fs::canonical(m_dir).string() + "/new.csv");

  EXPECT_EQ(refused("missing"), "it is a directory");
  EXPECT_EQ(refused("nowhere/x.csv"), "its directory does not exist");
  EXPECT_EQ(refused("new.csv/"), "it names a directory");
  EXPECT_EQ(refused("loop"), "Too many levels of symbolic links");
  EXPECT_EQ(refused("file/x"), "Not a directory");
}

TEST_F(OutputTargetTest, ALinkInProcIsWrittenThroughNotFollowed) {
  // /proc/self/fd/N names an open file, not a path: the descriptor's file is written.
  const int fd = ::open(path("held").c_str(), O_WRONLY | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  auto r = resolveOutput("/proc/self/fd/" + std::to_string(fd));
  ::close(fd);
  ASSERT_TRUE(std::holds_alternative<OutputTarget>(r)) << std::get<std::string>(r);
  EXPECT_TRUE(std::get<OutputTarget>(r).inPlace);
}

TEST_F(OutputTargetTest, ConflictsCompareFilesNotSpellings) {
  std::ofstream(m_dir / "in.json") << "{}";
  fs::create_hard_link(m_dir / "in.json", m_dir / "hard.json");
  fs::create_directory(m_dir / "sub");
  const std::string in = path("in.json");
  EXPECT_EQ(outputConflict({{"--csv", path("sub/../hard.json")}}, {{"--scenario", in}}),
            "--csv " + path("sub/../hard.json") + ": names the file read by --scenario " + in +
                "; write the output to another file");
  EXPECT_FALSE(outputConflict({{"--csv", path("other.json")}}, {{"--scenario", in}}));
  EXPECT_FALSE(outputConflict({{"--csv", path("in.json")}}, {{"--scenario", "ten-dd"}}));
  EXPECT_TRUE(
      outputConflict({{"--csv", path("a.csv")}, {"--task-csv", path("./sub/../a.csv")}}, {}));
  EXPECT_FALSE(outputConflict({{"--csv", path("a.csv")}, {"--task-csv", path("b.csv")}}, {}));
  EXPECT_FALSE(outputConflict({{"--csv", "-"}, {"--task-csv", "-"}}, {}));  // checked elsewhere
}

TEST_F(OutputTargetTest, ACommitReplacesTheFileKeepingItsModeAndADiscardLeavesIt) {
  std::ofstream(m_dir / "out") << "old";
  ASSERT_EQ(::chmod(path("out").c_str(), 0640), 0);
  {
    OutputWriter w(resolved("out"));
    ASSERT_FALSE(w.open());
    write(w, "discarded");
    EXPECT_TRUE(fs::exists(w.temporaryPath()));
  }  // destroyed without a commit
  EXPECT_EQ(readFile(m_dir / "out"), "old");
  EXPECT_EQ(std::distance(fs::directory_iterator(m_dir), fs::directory_iterator()), 1);

  OutputWriter w(resolved("out"));
  ASSERT_FALSE(w.open());
  EXPECT_EQ(w.temporaryPath(), path("out") + ".tmp-" + std::to_string(::getpid()));
  write(w, "new");
  EXPECT_EQ(readFile(m_dir / "out"), "old");  // nothing visible before the commit
  ASSERT_FALSE(w.commit());
  EXPECT_EQ(readFile(m_dir / "out"), "new");
  EXPECT_EQ(fs::status(m_dir / "out").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  EXPECT_EQ(std::distance(fs::directory_iterator(m_dir), fs::directory_iterator()), 1);
}

TEST_F(OutputTargetTest, ATemporaryNameSomeoneElsePlacedIsNeverWrittenThrough) {
  std::ofstream(m_dir / "victim") << "precious";
  const std::string temporary = path("out") + ".tmp-" + std::to_string(::getpid());
  fs::create_symlink(m_dir / "victim", temporary);
  OutputWriter w(resolved("out"));
  const auto reason = w.open();
  ASSERT_TRUE(reason);
  EXPECT_NE(reason->find("File exists"), std::string::npos) << *reason;
  EXPECT_EQ(readFile(m_dir / "victim"), "precious");
}

TEST_F(OutputTargetTest, CommitOutputsRenamesAllOrNone) {
  std::ofstream(m_dir / "a") << "old a";
  std::ofstream(m_dir / "b") << "old b";
  // Writers replacing a and b, open, holding the new text.
  const auto writeBoth = [&](OutputWriter& x, OutputWriter& y) {
    ASSERT_FALSE(x.open());
    ASSERT_FALSE(y.open());
    write(x, "new a");
    write(y, "new b");
  };
  OutputWriter a(resolved("a"));
  OutputWriter b(resolved("b"));
  writeBoth(a, b);
  if (HasFatalFailure()) return;
  ::close(b.fd());  // b's descriptor fails at prepare(): neither may be renamed
  const auto failure = commitOutputs({&a, &b});
  ASSERT_TRUE(failure);
  EXPECT_EQ(failure->first, 1u);
  EXPECT_EQ(readFile(m_dir / "a"), "old a");
  EXPECT_EQ(readFile(m_dir / "b"), "old b");
  EXPECT_EQ(std::distance(fs::directory_iterator(m_dir), fs::directory_iterator()), 2);

  OutputWriter c(resolved("a"));
  OutputWriter d(resolved("b"));
  writeBoth(c, d);
  if (HasFatalFailure()) return;
  ASSERT_FALSE(commitOutputs({&c, &d}));
  EXPECT_EQ(readFile(m_dir / "a"), "new a");
  EXPECT_EQ(readFile(m_dir / "b"), "new b");
}

TEST_F(OutputTargetTest, StaleTemporariesOfOurOwnPidGoUnlessTheyAreBeingWritten) {
  // A file with our pid that we are not writing was left by an earlier process with it.
  const std::string own = path("out") + ".tmp-" + std::to_string(::getpid());
  std::ofstream(own) << "stale";
  EXPECT_EQ(removeStaleTemporaries(path("out")), 1);
  EXPECT_FALSE(fs::exists(own));
  OutputWriter w(resolved("out"));
  ASSERT_FALSE(w.open());
  EXPECT_EQ(removeStaleTemporaries(path("out")), 0);
  EXPECT_TRUE(fs::exists(own));
}

TEST_F(OutputTargetTest, AFifoIsWrittenInPlace) {
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0644), 0);
  const int reader = ::open(path("fifo").c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  OutputWriter w(resolved("fifo"));
  ASSERT_FALSE(w.open());
  EXPECT_EQ(w.temporaryPath(), "");
  write(w, "through");
  ASSERT_FALSE(w.commit());
  char buffer[16] = {};
  EXPECT_EQ(::read(reader, buffer, sizeof buffer), 7);
  EXPECT_EQ(std::string(buffer), "through");
  ::close(reader);
  struct stat st {};
  ASSERT_EQ(::lstat(path("fifo").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

}  // namespace
}  // namespace throttlelab::host
