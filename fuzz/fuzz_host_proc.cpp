// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: the readers of this machine's /proc and /sys text (host::VmstatSampler,
// readHostInfo, readBlockQueue), which live mode and `--this-host` run on whatever the kernel
// prints. The input is a set of files, each introduced by a line "@@ NAME" where NAME is one
// of the fixed names below (anything else is ignored, so the input never chooses a path); they
// are written into a private temporary directory that stands for /proc and /sys, and a file
// the input leaves out is absent. Two polls, so the rate code runs too. Nothing may throw or
// crash; a failed poll must say why.
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "fuzz_support.h"
#include "throttlelab/host/vmstat_sampler.h"

namespace {

// Relative to the fake root; the proc/ ones are what VmstatSampler and readHostInfo read.
constexpr std::array<std::string_view, 17> kFiles = {
    "proc/vmstat",
    "proc/meminfo",
    "proc/zoneinfo",
    "proc/stat",
    "proc/timer_list",
    "proc/sys/kernel/osrelease",
    "proc/sys/vm/dirty_ratio",
    "proc/sys/vm/dirty_background_ratio",
    "proc/sys/vm/dirty_bytes",
    "proc/sys/vm/dirty_background_bytes",
    "proc/sys/vm/dirty_expire_centisecs",
    "proc/sys/vm/dirty_writeback_centisecs",
    "sys/block/sda/queue/max_sectors_kb",
    "sys/block/sda/queue/nr_requests",
    "sys/block/sda/queue/rotational",
    "sys/block/sda/queue/scheduler",
    "bdi",  // not a file that is read: the bdi name handed to readBlockQueue
};

/// The fake root, made once per fuzzing process and emptied of our files when it ends.
struct FakeRoot {
  std::string dir;
  FakeRoot() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/throttlelab-fuzz-XXXXXX";
    if (!::mkdtemp(pattern.data())) throttlelab::fuzz::fail("cannot make a temporary directory");
    dir = pattern;
    for (const char* sub : {"/proc", "/proc/sys", "/proc/sys/kernel", "/proc/sys/vm", "/sys",
                            "/sys/block", "/sys/block/sda", "/sys/block/sda/queue"})
      ::mkdir((dir + sub).c_str(), 0700);
  }
  ~FakeRoot() {
    for (std::string_view f : kFiles) ::unlink((dir + "/" + std::string(f)).c_str());
    for (const char* sub : {"/sys/block/sda/queue", "/sys/block/sda", "/sys/block", "/sys",
                            "/proc/sys/vm", "/proc/sys/kernel", "/proc/sys", "/proc", ""})
      ::rmdir((dir + sub).c_str());
  }
  FakeRoot(const FakeRoot&) = delete;
  FakeRoot& operator=(const FakeRoot&) = delete;
};

void writeWhole(const std::string& path, std::string_view text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throttlelab::fuzz::fail("cannot write the fake /proc", path);
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) throttlelab::fuzz::fail("cannot write the fake /proc", path);
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static FakeRoot root;
  std::array<std::string_view, kFiles.size()> content{};
  std::array<bool, kFiles.size()> present{};
  // Split at lines "@@ NAME"; text before the first header belongs to no file.
  std::string_view text = throttlelab::fuzz::asText(data, size);
  std::size_t current = kFiles.size();
  std::size_t start = 0;
  std::size_t pos = 0;
  const auto close = [&](std::size_t end) {
    if (current < kFiles.size()) content[current] = text.substr(start, end - start);
  };
  while (pos <= text.size()) {
    const std::size_t eol = std::min(text.find('\n', pos), text.size());
    const std::string_view line = text.substr(pos, eol - pos);
    if (line.substr(0, 3) == "@@ ") {
      close(pos);
      current = kFiles.size();
      for (std::size_t i = 0; i < kFiles.size(); ++i)
        if (line.substr(3) == kFiles[i]) current = i;
      if (current < kFiles.size()) present[current] = true;
      start = std::min(eol + 1, text.size());
    }
    pos = eol + 1;
  }
  close(text.size());

  std::string bdi = "sda";
  for (std::size_t i = 0; i < kFiles.size(); ++i) {
    const std::string path = root.dir + "/" + std::string(kFiles[i]);
    if (kFiles[i] == "bdi") {
      if (present[i]) bdi = std::string(content[i].substr(0, content[i].find('\n')));
    } else if (present[i]) {
      writeWhole(path, content[i]);
    } else {
      ::unlink(path.c_str());
    }
  }

  throttlelab::host::VmstatSampler sampler(root.dir + "/proc");
  for (const double nowS : {1.0, 1.5}) {
    const auto poll = sampler.poll(nowS);
    if (!poll.sample) throttlelab::fuzz::requireMessage(poll.error);
  }
  (void)throttlelab::host::readHostInfo(root.dir + "/proc");
  (void)throttlelab::host::readBlockQueue(bdi, root.dir + "/sys");
  return 0;
}
