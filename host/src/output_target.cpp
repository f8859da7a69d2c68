// SPDX-License-Identifier: GPL-3.0-or-later
#include "throttlelab/host/output_target.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>

#include "file_util.h"

namespace throttlelab::host {

namespace {

constexpr int kMaxLinkHops = 40;  // as the kernel's MAXSYMLINKS
constexpr std::array kCleanupSignals{SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGTERM, SIGXCPU, SIGXFSZ};

// ---------------------------------------------------------------------------------------------
// The temporaries a fatal signal must remove. A fixed table, so that the handler touches no
// allocator and no lock: a slot is claimed (1) while its path is written, armed (2) once the
// handler may read it, and freed (0) when the file is renamed or removed.

constexpr int kSlots = 32;
struct Slot {
  std::atomic<int> state{0};
  std::array<char, PATH_MAX> path{};
};
Slot g_slots[kSlots];
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler reads these");

extern "C" void removeTemporariesAndDie(int sig) {
  const int saved = errno;
  for (Slot& slot : g_slots)
    if (slot.state.load(std::memory_order_acquire) == 2) ::unlink(slot.path.data());
  errno = saved;
  // SA_RESETHAND put the default action back and SA_NODEFER lets the signal through at once:
  // the process ends as it would have without us, and its exit status says by which signal.
  ::raise(sig);
}

std::mutex g_installMutex;

/// Installs the handler for every signal still at its default action; a handler someone else
/// installed (the recorder's, the window's interrupt guard) is left alone. Checked at every
/// new temporary, because such a guard may since have put the default back.
void ensureSignalCleanup() {
  std::lock_guard lock(g_installMutex);
  for (const int sig : kCleanupSignals) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) != 0) continue;
    if ((old.sa_flags & SA_SIGINFO) != 0 || old.sa_handler != SIG_DFL) continue;
    struct sigaction action {};
    action.sa_handler = removeTemporariesAndDie;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND | SA_NODEFER;
    ::sigaction(sig, &action, nullptr);
  }
}

int claimSlot(const std::string& path) {
  if (path.size() >= PATH_MAX) return -1;
  ensureSignalCleanup();
  for (int i = 0; i < kSlots; ++i) {
    int expected = 0;
    if (!g_slots[i].state.compare_exchange_strong(expected, 1)) continue;
    std::memcpy(g_slots[i].path.data(), path.c_str(), path.size() + 1);
    g_slots[i].state.store(2, std::memory_order_release);
    return i;
  }
  return -1;  // more than kSlots outputs at once: still written, only not removed on a signal
}

/// Holds back the signals that remove temporaries while a temporary is created and armed: a
/// signal between the open() and the arming would leave the file behind (seen: SIGTERM sent
/// as soon as the file appeared). A held-back signal arrives at the end of the scope.
class CleanupSignalsHeld {
 public:
  CleanupSignalsHeld() {
    sigset_t held;
    sigemptyset(&held);
    for (const int sig : kCleanupSignals) sigaddset(&held, sig);
    m_ok = ::pthread_sigmask(SIG_BLOCK, &held, &m_previous) == 0;
  }
  ~CleanupSignalsHeld() {
    if (m_ok) ::pthread_sigmask(SIG_SETMASK, &m_previous, nullptr);
  }
  CleanupSignalsHeld(const CleanupSignalsHeld&) = delete;
  CleanupSignalsHeld& operator=(const CleanupSignalsHeld&) = delete;

 private:
  sigset_t m_previous{};
  bool m_ok = false;
};

void releaseSlot(int& slot) {
  if (slot >= 0) g_slots[slot].state.store(0, std::memory_order_release);
  slot = -1;
}

bool isArmedTemporary(const std::string& path) {
  for (const Slot& slot : g_slots)
    if (slot.state.load(std::memory_order_acquire) == 2 && path == slot.path.data()) return true;
  return false;
}

// ---------------------------------------------------------------------------------------------

std::string directoryOf(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string fileNameOf(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string joinPath(const std::string& directory, const std::string& name) {
  if (directory.empty() || directory == ".") return name;
  return directory.back() == '/' ? directory + name : directory + "/" + name;
}

/// Absolute, its directory's links resolved when the directory exists, else lexically.
std::string normalisedName(const std::string& path) {
  std::string absolute = path;
  if (absolute.empty() || absolute.front() != '/') {
    std::unique_ptr<char, decltype(&std::free)> cwd(::getcwd(nullptr, 0), &std::free);
    absolute = joinPath(cwd ? std::string(cwd.get()) : std::string("."), path);
  }
  const std::string name = fileNameOf(absolute);
  if (std::unique_ptr<char, decltype(&std::free)> dir(
          ::realpath(directoryOf(absolute).c_str(), nullptr), &std::free);
      dir && name != "." && name != "..")
    return joinPath(dir.get(), name);
  // Lexically: drop "." components and fold "dir/..".
  std::vector<std::string> parts;
  std::size_t start = 1;
  while (start <= absolute.size()) {
    auto end = absolute.find('/', start);
    if (end == std::string::npos) end = absolute.size();
    const std::string part = absolute.substr(start, end - start);
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    start = end + 1;
  }
  std::string out;
  for (const auto& p : parts) out += "/" + p;
  return out.empty() ? "/" : out;
}

FileIdentity identityOf(const struct stat& st) {
  FileIdentity id;
  id.exists = true;
  id.device = static_cast<std::uint64_t>(st.st_dev);
  id.inode = static_cast<std::uint64_t>(st.st_ino);
  id.characterDevice = S_ISCHR(st.st_mode);
  return id;
}

/// `t` written where the user named it, through whatever links lead there.
OutputTarget inPlace(OutputTarget t, const struct stat& st) {
  t.path = t.requested;
  t.inPlace = true;
  t.exists = true;
  t.mode = st.st_mode;
  t.identity = identityOf(st);
  return t;
}

bool onProcfs(const std::string& directory) {
  struct statfs fs {};
  return ::statfs(directory.c_str(), &fs) == 0 &&
         static_cast<unsigned long>(fs.f_type) == PROC_SUPER_MAGIC;
}

std::string kindOf(mode_t mode) {
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a file that can be written";
}

std::optional<std::string> syncDirectory(const std::string& directory) {
  const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;  // the rename is done; durability is the best we can do
  ::fsync(fd);
  ::close(fd);
  return std::nullopt;
}

bool processRunning(long pid) {
  if (pid == static_cast<long>(::getpid())) return false;  // callers check our own files
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

}  // namespace

bool FileIdentity::sameFileAs(const FileIdentity& other) const {
  if (exists != other.exists) return false;
  if (exists) return device == other.device && inode == other.inode;
  return !normalised.empty() && normalised == other.normalised;
}

FileIdentity inputIdentity(const std::string& path) {
  struct stat st {};
  if (path == "-") return ::fstat(STDIN_FILENO, &st) == 0 ? identityOf(st) : FileIdentity{};
  if (::stat(path.c_str(), &st) != 0) return FileIdentity{};
  return identityOf(st);
}

std::variant<OutputTarget, std::string> resolveOutput(const std::string& requested) {
  if (requested.empty()) return std::string("the name is empty");
  OutputTarget t;
  t.requested = requested;
  struct stat st {};
  const bool exists = ::stat(requested.c_str(), &st) == 0;
  if (!exists && errno != ENOENT) return detail::errnoText(errno);
  if (exists) {
    if (S_ISDIR(st.st_mode)) return std::string("it is a directory");
    if (S_ISBLK(st.st_mode) || S_ISSOCK(st.st_mode))
      return "it is " + kindOf(st.st_mode) + "; name a file";
    // A device or a FIFO: whatever reads it wants the bytes, not a new name.
    if (!S_ISREG(st.st_mode)) return inPlace(std::move(t), st);
  }

  // A regular file or a new name: follow the links to the name that is replaced.
  std::string p = requested;
  bool found = false;
  for (int hops = 0;; ++hops) {
    struct stat l {};
    if (::lstat(p.c_str(), &l) != 0) {
      if (errno != ENOENT) return detail::errnoText(errno);
      break;  // a new file (perhaps the target of a dangling link)
    }
    if (!S_ISLNK(l.st_mode)) {
      found = true;
      if (exists && (l.st_dev != st.st_dev || l.st_ino != st.st_ino))
        return std::string("it changed while it was being opened");
      if (!S_ISREG(l.st_mode)) return std::string("it changed while it was being opened");
      break;
    }
    if (hops >= kMaxLinkHops) return detail::errnoText(ELOOP);
    if (onProcfs(directoryOf(p))) {
      // /dev/stdout, /proc/self/fd/N: a link to an open file, not to a name; write through it.
      if (!exists) return detail::errnoText(ENOENT);
      return inPlace(std::move(t), st);
    }
    std::array<char, PATH_MAX> buffer{};
    const ssize_t n = ::readlink(p.c_str(), buffer.data(), buffer.size() - 1);
    if (n < 0) return detail::errnoText(errno);
    const std::string link(buffer.data(), static_cast<std::size_t>(n));
    p = link.front() == '/' ? link : joinPath(directoryOf(p), link);
  }
  if (exists && !found) return std::string("it changed while it was being opened");

  t.path = p;
  if (found) {
    t.exists = true;
    t.mode = st.st_mode;
    t.owner = st.st_uid;
    t.group = st.st_gid;
    t.identity = identityOf(st);
  } else {
    if (p.back() == '/' || fileNameOf(p) == "." || fileNameOf(p) == "..")
      return std::string("it names a directory");
    struct stat dir {};
    if (::stat(directoryOf(p).c_str(), &dir) != 0)
      return errno == ENOENT ? std::string("its directory does not exist")
                             : "its directory: " + detail::errnoText(errno);
    if (!S_ISDIR(dir.st_mode)) return std::string("its directory is not a directory");
    t.identity.normalised = normalisedName(p);
  }
  return t;
}

std::optional<std::string> outputConflict(const std::vector<NamedPath>& outputs,
                                          const std::vector<NamedPath>& inputs) {
  const auto identity = [](const NamedPath& output) -> std::optional<FileIdentity> {
    if (output.path == "-") return std::nullopt;
    const auto resolved = resolveOutput(output.path);
    if (const auto* t = std::get_if<OutputTarget>(&resolved)) return t->identity;
    return std::nullopt;  // reported when it is opened
  };
  std::vector<std::optional<FileIdentity>> ids;
  for (const auto& o : outputs) ids.push_back(identity(o));
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (!ids[i]) continue;
    for (const auto& in : inputs) {
      if (in.path.empty()) continue;
      const FileIdentity read = inputIdentity(in.path);
      if (read.exists && ids[i]->sameFileAs(read))
        return outputs[i].option + " " + outputs[i].path + ": names the file read by " + in.option +
               " " + in.path + "; write the output to another file";
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (!ids[j] || !ids[i]->sameFileAs(*ids[j])) continue;
      if (ids[i]->exists && ids[i]->characterDevice) continue;  // /dev/null takes both
      return outputs[i].option + " " + outputs[i].path + ": names the same file as " +
             outputs[j].option + " " + outputs[j].path;
    }
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------

OutputWriter::OutputWriter(OutputTarget target) : m_target(std::move(target)) {}

OutputWriter::~OutputWriter() {
  discard();
}

std::optional<std::string> OutputWriter::open() {
  if (m_fd >= 0) return std::nullopt;
  if (m_target.inPlace) {
    // No O_CREAT: if the node went away, nothing is created in its place.
    m_fd = ::open(m_target.path.c_str(),
                  O_WRONLY | O_CLOEXEC | O_NOCTTY | (S_ISREG(m_target.mode) ? O_TRUNC : 0));
    if (m_fd < 0) return detail::errnoText(errno);
    return std::nullopt;
  }
  removeStaleTemporaries(m_target.path);
  m_temporary = m_target.path + ".tmp-" + std::to_string(::getpid());
  const mode_t mode = m_target.exists ? (m_target.mode & 07777) : 0666;
  {
    const CleanupSignalsHeld held;  // the file exists only once the handler knows it
    ensureSignalCleanup();
    // O_EXCL and O_NOFOLLOW: a name planted there beforehand is never written through.
    m_fd = ::open(m_temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (m_fd < 0) {
      const int e = errno;
      const std::string name = m_temporary;
      m_temporary.clear();
      return "cannot create the temporary file " + name + ": " + detail::errnoText(e);
    }
    m_slot = claimSlot(m_temporary);
  }
  if (m_target.exists) {
    // The new file takes the old one's owner and mode (the owner only where we may).
    if (::geteuid() == 0) {
      if (::fchown(m_fd, m_target.owner, m_target.group) != 0) {
        // not fatal: the file is still written, owned by us
      }
    }
    ::fchmod(m_fd, mode);
  }
  return std::nullopt;
}

std::optional<std::string> OutputWriter::prepare() {
  if (m_prepared) return std::nullopt;
  if (m_fd < 0) return std::string("it was not opened");
  int e = 0;
  if (!m_target.inPlace && ::fsync(m_fd) != 0 && errno != EINVAL) e = errno;
  if (::close(m_fd) != 0 && e == 0 && errno != EINTR) e = errno;
  m_fd = -1;
  if (e != 0) {
    discard();
    return detail::errnoText(e);
  }
  m_prepared = true;
  return std::nullopt;
}

std::optional<std::string> OutputWriter::publish() {
  if (!m_prepared) return std::string("it was not prepared");
  if (m_target.inPlace) return std::nullopt;
  if (::rename(m_temporary.c_str(), m_target.path.c_str()) != 0) {
    const int e = errno;
    discard();
    return detail::errnoText(e);
  }
  releaseSlot(m_slot);
  m_temporary.clear();
  m_prepared = false;
  return syncDirectory(directoryOf(m_target.path));
}

std::optional<std::string> OutputWriter::commit() {
  if (auto e = prepare()) return e;
  return publish();
}

void OutputWriter::discard() {
  if (m_fd >= 0) ::close(m_fd);
  m_fd = -1;
  if (!m_temporary.empty()) ::unlink(m_temporary.c_str());
  releaseSlot(m_slot);
  m_temporary.clear();
  m_prepared = false;
}

std::optional<std::pair<std::size_t, std::string>> commitOutputs(
    const std::vector<OutputWriter*>& writers) {
  for (std::size_t i = 0; i < writers.size(); ++i)
    if (auto e = writers[i]->prepare()) {
      for (OutputWriter* w : writers) w->discard();
      return std::pair{i, *e};
    }
  sigset_t block, old;
  sigemptyset(&block);
  for (const int sig : kCleanupSignals) sigaddset(&block, sig);
  ::pthread_sigmask(SIG_BLOCK, &block, &old);
  std::optional<std::pair<std::size_t, std::string>> failure;
  for (std::size_t i = 0; i < writers.size(); ++i) {
    if (failure) {
      writers[i]->discard();
    } else if (auto e = writers[i]->publish()) {
      failure = std::pair{i, *e};
    }
  }
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return failure;
}

int removeStaleTemporaries(const std::string& targetPath) {
  const std::string directory = directoryOf(targetPath);
  const std::string prefix = fileNameOf(targetPath) + ".tmp-";
  DIR* dir = ::opendir(directory.c_str());
  if (!dir) return 0;
  int removed = 0;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string digits = name.substr(prefix.size());
    // Exactly what std::to_string(getpid()) writes: digits, no sign, no leading zero.
    if (digits.size() > 10 || digits.front() == '0' ||
        digits.find_first_not_of("0123456789") != std::string::npos)
      continue;
    const long long pid = std::stoll(digits);
    if (pid > INT_MAX) continue;
    const std::string path = joinPath(directory, name);
    if (processRunning(static_cast<long>(pid))) continue;
    if (pid == static_cast<long long>(::getpid()) && isArmedTemporary(path)) continue;
    struct stat st {};
    if (::fstatat(::dirfd(dir), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISREG(st.st_mode))
      continue;
    if (::unlinkat(::dirfd(dir), entry->d_name, 0) == 0) ++removed;
  }
  ::closedir(dir);
  return removed;
}

}  // namespace throttlelab::host
