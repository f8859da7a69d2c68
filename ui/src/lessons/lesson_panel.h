// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Plays a lesson (docs/lessons.md) in the window: the caption of the current step, its
/// question before it runs and the answer after, with the numbers the step's run measured.
/// Going to a step replays its run from the step that started it (the engine is deterministic,
/// so a step always shows the same run); moving on by one step continues the run as it stands.
#include <QStringList>
#include <QWidget>
#include <optional>
#include <vector>

#include "throttlelab/engine/lesson.h"

class QButtonGroup;
class QFrame;
class QLabel;
class QPushButton;
class QScrollArea;
class QVBoxLayout;

namespace throttlelab::ui {

class LiveController;

class LessonPanel : public QWidget {
  Q_OBJECT

 public:
  explicit LessonPanel(LiveController& controller, QWidget* parent = nullptr);

  void setLesson(engine::Lesson lesson);
  const engine::Lesson& lesson() const { return m_lesson; }
  bool hasLesson() const { return !m_lesson.steps.empty(); }
  /// Goes to step `index` (0-based) and applies it: loads or changes the scenario and runs.
  /// With a question, the run waits at the step's start until answer() (or `autoAnswer`).
  void goToStep(int index, bool autoAnswer = false);
  void nextStep();
  void previousStep();
  int currentStep() const { return m_index; }
  /// The step has run to its end (or has no run).
  bool stepSettled() const { return m_settled; }
  /// Picks a choice of the current question: the step runs, then its answer is revealed.
  void answer(int choice);
  /// The text shown after the answer (empty until then).
  QString revealText() const;
  /// Where the step stands, as the panel's header says it ("Step 2 of 5 — paused: …").
  QString positionText() const;
  /// The step's "Look at:" line (empty when it has no highlight).
  QString lookAtText() const;

 Q_SIGNALS:
  /// The step has run to its end: its figures are final (a scripted export waits for this).
  void stepReady();
  void hostViewRequested(bool on);
  /// The plots the step wants shown (lesson plot names), when it names any.
  void plotsRequested(const QStringList& plots);
  void highlightRequested(const std::optional<engine::LessonHighlight>& highlight);
  void problem(const QString& message);
  /// The step changed the running scenario (the parameter panel shows it).
  void scenarioChanged();

 private:
  struct Segment {
    engine::Scenario scenario;
    double toS = 0;
    bool reconfigure = false;
  };
  void showStep();
  /// The header's "Step K of N" and what the step is doing.
  void showPosition();
  void advance();
  void finishStep();
  void colourLookAtMark();

 protected:
  void changeEvent(QEvent* event) override;

 private:
  LiveController& m_controller;
  engine::Lesson m_lesson;
  int m_index = -1;
  std::vector<Segment> m_segments;
  std::size_t m_next = 0;
  bool m_waitingRun = false;
  bool m_waitingAnswer = false;
  bool m_settled = false;
  bool m_hasRun = false;  // the live run is one this panel started
  double m_runTimeS = 0;  // where that run stands (the end of the last run-for)
  std::optional<int> m_answered;
  QLabel* m_title;
  QLabel* m_position;
  QLabel* m_lookAt;
  QWidget* m_lookAtRow;
  QFrame* m_lookAtMark;
  QScrollArea* m_scroll;
  QLabel* m_caption;
  QLabel* m_question;
  QWidget* m_choices;
  QVBoxLayout* m_choiceLayout;
  QButtonGroup* m_choiceGroup;
  QPushButton* m_answerButton;
  QLabel* m_reveal;
  QPushButton* m_previous;
  QPushButton* m_next_;
};

}  // namespace throttlelab::ui
