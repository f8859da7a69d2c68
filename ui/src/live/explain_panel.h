// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// "Why this pause": the breakdown of one task's last throttle call at a moment (the marker
/// or now), the policy's own steps with their numbers, as text that can be copied.
#include <QWidget>
#include <map>
#include <optional>

#include "throttlelab/engine/records.h"

class QBoxLayout;
class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace throttlelab::ui {

class LiveController;

class ExplainPanel : public QWidget {
  Q_OBJECT

 public:
  explicit ExplainPanel(const LiveController& controller, QWidget* parent = nullptr);

  /// The task to explain (-1: none).
  void setTask(int task);
  int task() const { return m_task; }
  /// The moment: a time in the run, or nullopt for "now" (follows the run).
  void setMoment(std::optional<double> timeS);
  std::optional<double> moment() const { return m_moment; }
  /// Redraws from the controller's breakdowns.
  void refresh();
  /// The breakdown as shown ("" when there is none).
  QString text() const;

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  /// The heading's width while it stands beside the text.
  static constexpr int kBesideWidth = 170;
  const LiveController& m_controller;
  QBoxLayout* m_layout = nullptr;
  QBoxLayout* m_controls = nullptr;  ///< the heading and the buttons
  QLabel* m_heading = nullptr;
  QPlainTextEdit* m_text = nullptr;
  QPushButton* m_copy = nullptr;
  QPushButton* m_now = nullptr;
  int m_task = -1;
  std::optional<double> m_moment;
};

}  // namespace throttlelab::ui
