// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// While tracepoints are being recorded, Ctrl-C (SIGINT), SIGTERM and SIGHUP must not kill the
/// window before the recorder has put tracefs back as it found it. An InterruptGuard replaces
/// their handlers with one that only sets a flag; the GUI polls requested() and closes the
/// window the ordinary way, which stops the recorder. The old handlers come back when the
/// guard goes away.
#include <csignal>

namespace throttlelab::ui {

class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  /// A signal arrived since the guard was installed.
  static bool requested();

 private:
  struct sigaction m_oldInt {};
  struct sigaction m_oldTerm {};
  struct sigaction m_oldHup {};
};

}  // namespace throttlelab::ui
