// SPDX-License-Identifier: GPL-3.0-or-later
#include "interrupt_guard.h"

namespace throttlelab::ui {

namespace {
volatile std::sig_atomic_t g_requested = 0;

extern "C" void onInterrupt(int) {
  g_requested = 1;
}
}  // namespace

InterruptGuard::InterruptGuard() {
  g_requested = 0;
  struct sigaction action {};
  action.sa_handler = onInterrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, &m_oldInt);
  sigaction(SIGTERM, &action, &m_oldTerm);
  sigaction(SIGHUP, &action, &m_oldHup);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &m_oldInt, nullptr);
  sigaction(SIGTERM, &m_oldTerm, nullptr);
  sigaction(SIGHUP, &m_oldHup, nullptr);
}

bool InterruptGuard::requested() {
  return g_requested != 0;
}

}  // namespace throttlelab::ui
