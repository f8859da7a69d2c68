// SPDX-License-Identifier: GPL-3.0-or-later
#include "stderr_notifier.h"

#include <cstdio>

namespace throttlelab::ui {

void StderrNotifier::error(const QString& title, const QString& text) {
  // Without a title, `text` is already a command-line message ("--session: ...").
  if (title.isEmpty())
    std::fprintf(stderr, "throttlelab: %s\n", qPrintable(text));
  else
    std::fprintf(stderr, "throttlelab: error: %s: %s\n", qPrintable(title), qPrintable(text));
}

void StderrNotifier::warning(const QString& title, const QString& text) {
  std::fprintf(stderr, "throttlelab: warning: %s: %s\n", qPrintable(title), qPrintable(text));
}

}  // namespace throttlelab::ui
