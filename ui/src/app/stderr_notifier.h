// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// UserNotifier for scripted runs (--run-for ... --quit): a dialog would wait forever for a
/// click nobody makes, so messages go to standard error instead.
#include "user_notifier.h"

namespace throttlelab::ui {

class StderrNotifier final : public UserNotifier {
 public:
  void error(const QString& title, const QString& text) override;
  void warning(const QString& title, const QString& text) override;
};

}  // namespace throttlelab::ui
