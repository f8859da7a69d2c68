// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The task table over a TaskStats snapshot. The model shares the snapshot (no copy); an
/// update with the same task set is a dataChanged over all rows, so views keep their
/// selection and scroll position even with 10,000 rows.
#include <QAbstractTableModel>
#include <memory>

#include "live_batch.h"

namespace throttlelab::ui {

class TaskTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    Name,
    Pid,
    Sched,
    Cgroup,
    State,
    WriteMBps,
    DirtiedMiB,
    PauseP50,
    PauseP99,
    PauseMax,
    TaskRatelimit,
    JournalWait,
    ReadMax,
    ColumnCount
  };
  static constexpr int kTaskIndexRole = Qt::UserRole;
  static constexpr int kSortRole = Qt::UserRole + 1;

  explicit TaskTableModel(QObject* parent = nullptr);

  void setSnapshot(std::shared_ptr<const WorkerSnapshot> snapshot);
  void clear();
  /// Model row of a task index, or -1.
  int rowOfTask(int taskIndex) const;
  int taskAt(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  const engine::TaskStats& row(int r) const {
    return m_snapshot->tasks[static_cast<std::size_t>(r)];
  }

  std::shared_ptr<const WorkerSnapshot> m_snapshot;
};

}  // namespace throttlelab::ui
