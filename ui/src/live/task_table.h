// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The task table widget: a filter box and a sortable QTableView over TaskTableModel. It
/// reports the selected task by its index (stable across sorting and model updates).
#include <QWidget>

#include "session_state.h"

class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace throttlelab::ui {

class TaskTableModel;

class TaskTable : public QWidget {
  Q_OBJECT

 public:
  explicit TaskTable(TaskTableModel* model, QWidget* parent = nullptr);

  /// Selects the row of this task (-1 clears); re-applied when the row appears later.
  void selectTask(int taskIndex);
  int selectedTask() const { return m_selected; }
  /// Its part of a session: the selected task.
  void captureSession(SessionState& session) const { session.selectedTask = m_selected; }
  /// The task appears with the first snapshot of the new run; the table selects it then.
  void applySession(const SessionState& session) { selectTask(session.selectedTask); }
  QTableView* view() const { return m_view; }
  QSortFilterProxyModel* proxy() const { return m_proxy; }

 Q_SIGNALS:
  void selectedTaskChanged(int taskIndex);

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void fitColumns();
  void onSelectionChanged();
  void reselect();

  TaskTableModel* m_model;
  QSortFilterProxyModel* m_proxy;
  QTableView* m_view;
  QLineEdit* m_filter;
  int m_selected = -1;
  bool m_restoring = false;
};

}  // namespace throttlelab::ui
