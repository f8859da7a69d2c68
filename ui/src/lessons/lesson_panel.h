// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Plays a lesson (docs/lessons.md) in the window: the caption of the current step with the
/// terms it introduces, its question before it runs (choices, or a number box for a numeric
/// prediction) and the answer after, with the numbers the step's run measured, the rest of the
/// answer behind "More"; a glossary of the lesson's terms; the step's curves alone on their
/// plots until "All curves"; progress, and Cancel, while a step takes more than a moment.
///
/// Going to a step replays its run from the step that started it (the engine is deterministic,
/// so a step always shows the same run); moving on by one step continues the run as it stands.
/// The figures come from a headless run of the same steps (engine::LessonRunner, continuing
/// from step to step as the window does) on a thread of its own, started as the step opens.
#include <QElapsedTimer>
#include <QStringList>
#include <QTimer>
#include <QWidget>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "background_job.h"
#include "throttlelab/engine/lesson.h"

class QButtonGroup;
class QCheckBox;
class QFrame;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QResizeEvent;
class QScrollArea;
class QStackedWidget;
class QVBoxLayout;

namespace throttlelab::ui {

class LiveController;

class LessonPanel : public QWidget {
  Q_OBJECT

 public:
  explicit LessonPanel(LiveController& controller, QWidget* parent = nullptr);
  ~LessonPanel() override;

  void setLesson(engine::Lesson lesson);
  const engine::Lesson& lesson() const { return m_lesson; }
  bool hasLesson() const { return !m_lesson.steps.empty(); }
  /// Goes to step `index` (0-based) and applies it: loads or changes the scenario and runs.
  /// With a question, the run waits at the step's start until answer() (or `autoAnswer`).
  void goToStep(int index, bool autoAnswer = false);
  void nextStep();
  void previousStep();
  int currentStep() const { return m_index; }
  /// The step has run to its end and its figures are measured (or it has no run).
  bool stepSettled() const { return m_settled; }
  /// Picks a choice of the current question: the step runs, then its answer is revealed.
  void answer(int choice);
  /// A numeric question's guess: the step runs, then the measured value is shown beside it.
  void answerNumber(double guess);
  /// Stops the step's run and its measurement: the step stays where it is, "cancelled".
  void cancelStep();
  bool stepCancelled() const { return m_cancelled; }
  /// The step's question waits for its answer, the run standing at the step's start.
  bool waitingForAnswer() const { return m_waitingAnswer && !m_waitingRun && !m_cancelled; }
  /// The text shown after the answer (empty until then): its first layer.
  QString revealText() const;
  /// The rest of the answer, behind "More" (empty if the question has none).
  QString moreText() const;
  /// Where the step stands, as the panel's header says it ("Step 2 of 5 — paused: …").
  QString positionText() const;
  /// The step's "Look at:" line (empty when it has no highlight).
  QString lookAtText() const;
  /// Every term of the lesson with the step that introduces it, one "term (step N):
  /// definition" per line, alphabetical.
  QStringList glossaryEntries() const;
  /// Shows the glossary instead of the step (or the step again).
  void showGlossary(bool on);
  /// Whether every curve is shown although the step names its own (the "All curves" box).
  bool allCurves() const;
  void setAllCurves(bool all);
  /// Shows or hides the answer's second layer.
  void showMore(bool on);

 Q_SIGNALS:
  /// The step has run to its end: its figures are final (a scripted export waits for this).
  void stepReady();
  /// The run stands at the step's start and the question waits (waitingForAnswer()).
  void questionWaiting();
  void hostViewRequested(bool on);
  /// The plots the step wants shown (lesson plot names), when it names any.
  void plotsRequested(const QStringList& plots);
  void highlightRequested(const std::optional<engine::LessonHighlight>& highlight);
  /// The curves each plot draws: the step's `curves`, or none (every curve) when the step
  /// names none or "All curves" is ticked.
  void curvesRequested(const std::vector<engine::LessonCurves>& curves);
  void problem(const QString& message);
  /// The step changed the running scenario (the parameter panel shows it).
  void scenarioChanged();

 protected:
  void changeEvent(QEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  struct Segment {
    engine::Scenario scenario;
    double toS = 0;
    bool reconfigure = false;
  };
  void buildHeader(QVBoxLayout* layout);
  QStackedWidget* buildPages();
  QWidget* buildProgressRow();
  QHBoxLayout* buildButtons();
  void connectControls();
  /// An answer locked in (`record` keeps it): the step runs, or starts again from where it
  /// began when the run went on by hand while the question waited, and the reveal shows.
  void lockIn(const engine::LessonStep& step, const std::function<void()>& record);
  const engine::LessonStep* step() const;
  void showStep();
  /// The header's "Step K of N" and what the step is doing.
  void showPosition();
  /// The kernel line: whole on the lesson's description and first step, then one elided line
  /// (the whole text in its tooltip), so that a later step's question stays in view at 1280x720.
  void fitKernelLine();
  void advance();
  /// The live run has reached the step's end.
  void liveDone();
  /// Both the live run and the measurement are done: the step is settled.
  void settleIfDone();
  void colourLookAtMark();
  void startMeasuring();
  void measured(std::shared_ptr<engine::LessonMeasurement> m, const QString& error);
  void updateProgress();
  void emitCurves();
  /// `text` with the step's measured numbers, or "…" for each before they are measured.
  QString filled(const std::string& text) const;
  void showReveal();
  void showGlossaryText();
  /// After a reveal, the question (and as much of the answer as fits) in view.
  void keepQuestionInView();
  /// The question box's minimum height: what its lines need at its width.
  void fitQuestionBox();

  LiveController& m_controller;
  engine::Lesson m_lesson;
  int m_index = -1;
  std::vector<Segment> m_segments;
  std::size_t m_next = 0;
  bool m_waitingRun = false;
  bool m_waitingAnswer = false;
  bool m_liveDone = false;
  bool m_settled = false;
  bool m_cancelled = false;
  bool m_hasRun = false;  // the live run is one this panel started
  double m_runTimeS = 0;  // where that run stands (the end of the last run-for)
  double m_runFromS = 0;  // where the step's live run began (progress)
  std::optional<int> m_answered;
  std::optional<double> m_guess;
  // The figures of the current step, from m_runner on m_job's thread.
  std::unique_ptr<engine::LessonRunner> m_runner;
  std::optional<engine::LessonMeasurement> m_measurement;
  QString m_measureError;
  bool m_measuring = false;
  std::uint64_t m_measureGeneration = 0;
  double m_measureDoneS = 0;
  double m_measureTotalS = 0;
  QElapsedTimer m_runClock;  // since the step began to run (or to be measured)
  QTimer m_progressTimer;

  QLabel* m_title;
  QLabel* m_kernel;
  QString m_kernelText;  // the lesson's whole kernel line
  QLabel* m_position;
  QPushButton* m_glossaryButton;
  QLabel* m_lookAt;
  QWidget* m_lookAtRow;
  QFrame* m_lookAtMark;
  QStackedWidget* m_pages;
  QScrollArea* m_scroll;  // the caption and the step's terms
  QLabel* m_caption;
  QLabel* m_terms;
  QWidget* m_questionBox;  // pinned: never scrolls away
  QLabel* m_question;
  QWidget* m_choices;
  QVBoxLayout* m_choiceLayout;
  QButtonGroup* m_choiceGroup;
  QWidget* m_numberRow;
  QLineEdit* m_number;
  QLabel* m_unit;
  QPushButton* m_answerButton;
  QScrollArea* m_answerScroll;  // the reveal and "More"
  QLabel* m_reveal;
  QPushButton* m_moreButton;
  QLabel* m_more;
  QScrollArea* m_glossaryScroll;
  QLabel* m_glossary;
  QWidget* m_progressRow;
  QLabel* m_progressText;
  QProgressBar* m_progress;
  QPushButton* m_cancel;
  QCheckBox* m_allCurves;
  QPushButton* m_previous;
  QPushButton* m_next_;
  BackgroundJob m_job{this};  // last: stopped before what its thread uses goes
};

}  // namespace throttlelab::ui
