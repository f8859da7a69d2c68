// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Where to begin, shown in the window on the first start (docs/window.md, "Getting started"):
/// the first lesson, the default run, a real kernel trace and presenter mode, one click each,
/// and a button that puts the panel away for good. It only asks; MainWindow does what is asked
/// and decides when the panel is shown (Help ▸ Getting started brings it back).
#include <QString>
#include <QWidget>

class QPushButton;

namespace throttlelab::ui {

class GettingStartedPanel : public QWidget {
  Q_OBJECT

 public:
  /// `lessonName` and `lessonTitle`: the first lesson of --list-lessons (an empty name: there
  /// is none, and its button is disabled). `defaultRunText`: what the default scenario runs
  /// (its description).
  GettingStartedPanel(const QString& lessonName, const QString& lessonTitle,
                      const QString& defaultRunText, QWidget* parent = nullptr);

  /// Its buttons, for tests and the window: "firstLessonButton", "defaultRunButton",
  /// "openTraceButton", "presenterButton", "dismissButton" (also their objectNames).
  QPushButton* firstLessonButton() const { return m_lesson; }
  QPushButton* defaultRunButton() const { return m_defaultRun; }
  QPushButton* openTraceButton() const { return m_openTrace; }
  QPushButton* presenterButton() const { return m_presenter; }
  QPushButton* dismissButton() const { return m_dismiss; }
  /// The presenter button shows whether presenter mode is on.
  void setPresenterMode(bool on);

  /// As narrow as the Parameters beside which it stands: the buttons' descriptions wrap.
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 Q_SIGNALS:
  void lessonRequested(const QString& name);
  void defaultRunRequested();
  void openTraceRequested();
  void presenterModeRequested(bool on);
  /// "Don't show at start": the panel is not shown on later starts.
  void dismissed();

 private:
  QPushButton* m_lesson;
  QPushButton* m_defaultRun;
  QPushButton* m_openTrace;
  QPushButton* m_presenter;
  QPushButton* m_dismiss;
};

}  // namespace throttlelab::ui
