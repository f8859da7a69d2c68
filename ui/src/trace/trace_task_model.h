// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The task table of an imported trace: one row per pid that called balance_dirty_pages, with
/// what the trace says about it (pages dirtied, rate, pauses). A trace knows no scheduling
/// class or state, so this is a small model of its own rather than TaskTableModel.
#include <QAbstractTableModel>
#include <vector>

#include "trace_collector.h"

namespace throttlelab::ui {

class TraceTaskModel final : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Pid, Comm, Dirtied, RateKBps, Pauses, PauseP50, PauseMax, ColumnCount };
  static constexpr int kSortRole = Qt::UserRole + 1;

  explicit TraceTaskModel(QObject* parent = nullptr);

  void setRows(std::vector<TraceTaskRow> rows);
  void clear();
  const std::vector<TraceTaskRow>& rows() const { return m_rows; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  std::vector<TraceTaskRow> m_rows;
};

}  // namespace throttlelab::ui
