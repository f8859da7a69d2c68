// SPDX-License-Identifier: GPL-3.0-or-later
#include "terminal_progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ostream>

namespace throttlelab::cli {

namespace {

double steadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// The terminal's width in columns (standard error's), 0 if unknown.
std::size_t terminalColumns() {
  winsize size{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) != 0) return 0;
  return size.ws_col;
}

/// Cuts `line` to `columns` - 1 characters (a line as wide as the terminal wraps on some),
/// counting UTF-8 sequences as one.
std::string fitted(const std::string& line, std::size_t columns) {
  if (columns < 2) return line;
  std::size_t chars = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if ((static_cast<unsigned char>(line[i]) & 0xC0) == 0x80) continue;
    if (++chars == columns) return line.substr(0, i);
  }
  return line;
}

}  // namespace

double TerminalProgress::defaultDelayS() {
  if (const char* text = std::getenv("THROTTLELAB_PROGRESS_DELAY"); text && *text) {
    char* end = nullptr;
    const double v = std::strtod(text, &end);
    if (end != text && *end == '\0' && std::isfinite(v) && v >= 0) return v;
  }
  return 2.0;
}

TerminalProgress::TerminalProgress(std::ostream& err, bool enabled, double totalS, std::string what,
                                   double delayS, Clock clock)
    : m_err(err),
      m_enabled(enabled),
      m_what(std::move(what)),
      m_delayS(delayS),
      m_clock(clock ? std::move(clock) : Clock(steadySeconds)),
      m_startS(m_clock()),
      m_meter(totalS) {}

TerminalProgress::~TerminalProgress() {
  finish();
}

void TerminalProgress::update(double doneS) {
  if (!m_enabled) return;
  const double now = m_clock();
  m_meter.update(doneS, now - m_startS);
  if (!m_shown && !m_meter.expectedLongerThan(m_delayS, std::min(m_delayS, 0.5))) return;
  if (m_shown && now - m_lastDrawS < kRedrawS - 1e-9) return;
  m_lastDrawS = now;
  m_shown = true;
  // Carriage return, the line, and "erase to the end of the line" for a shorter one.
  m_err << '\r' << fitted("throttlelab: " + m_what + m_meter.line(), terminalColumns()) << "\x1b[K"
        << std::flush;
}

engine::SimulatedProgress TerminalProgress::callback() {
  if (!m_enabled) return {};
  return [this](double doneS, double totalS) {
    if (totalS != m_meter.totalS()) {
      const double wall = m_meter.wallS();
      m_meter = engine::ProgressMeter(totalS);
      m_meter.update(0, wall);
    }
    update(doneS);
  };
}

void TerminalProgress::finish() {
  if (!m_shown) return;
  m_shown = false;
  m_err << "\r\x1b[K" << std::flush;
}

}  // namespace throttlelab::cli
