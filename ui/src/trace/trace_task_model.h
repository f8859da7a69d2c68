// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The task table of an imported trace: one row per pid that called balance_dirty_pages, with
/// what the trace says about it (pages dirtied, rate, pauses). A trace knows no scheduling
/// class or state, so this is a small model of its own rather than TaskTableModel.
#include "column_table_model.h"
#include "trace_collector.h"

namespace throttlelab::ui {

class TraceTaskModel final : public ColumnTableModel<TraceTaskRow> {
  Q_OBJECT

 public:
  enum Column { Pid, Comm, Dirtied, RateKBps, Pauses, PauseP50, PauseMax, ColumnCount };
  static constexpr int kSortRole = Qt::UserRole + 1;

  explicit TraceTaskModel(QObject* parent = nullptr);
};

}  // namespace throttlelab::ui
