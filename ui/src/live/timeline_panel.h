// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The run's timeline as a list: task groups starting and stopping, OOM kills, changes of a
/// control or the policy, the reset, and the user's notes, which can be added, edited in
/// place (time and text) and deleted.
#include <QWidget>
#include <functional>

class QTableWidget;
class QPushButton;

namespace throttlelab::ui {

class LiveController;

class TimelinePanel : public QWidget {
  Q_OBJECT

 public:
  /// `noteTime` says where a new note goes (the marker, or the run's current time).
  TimelinePanel(LiveController& controller, std::function<double()> noteTime,
                QWidget* parent = nullptr);

  /// Rebuilds the list from the controller's timeline.
  void refresh();
  /// Adds a note at noteTime() and starts editing its text.
  void addNote();
  /// Deletes the selected row if it is a note.
  void deleteSelected();
  QTableWidget* table() const { return m_table; }

 Q_SIGNALS:
  /// A row was double-clicked: show that moment.
  void timeActivated(double timeS);

 private:
  void onEdited(int row, int column);

  LiveController& m_controller;
  std::function<double()> m_noteTime;
  QTableWidget* m_table = nullptr;
  QPushButton* m_add = nullptr;
  QPushButton* m_delete = nullptr;
  bool m_filling = false;
};

}  // namespace throttlelab::ui
