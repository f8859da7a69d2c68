// SPDX-License-Identifier: GPL-3.0-or-later
#include "lesson_panel.h"

#include <QButtonGroup>
#include <QCheckBox>
#include <QCoreApplication>
#include <QDoubleValidator>
#include <QEvent>
#include <QFrame>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QStackedWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <map>

#include "live_controller.h"
#include "theme.h"
#include "throttlelab/engine/compare.h"

namespace throttlelab::ui {

namespace {

/// How long a step runs before its progress and Cancel are shown.
constexpr int kProgressAfterMs = 400;

/// Plain text with blank lines as paragraphs, for a rich-text label.
QString paragraphs(const QString& text) {
  QString html;
  for (const QString& p : text.split(QStringLiteral("\n\n")))
    html +=
        QStringLiteral("<p>%1</p>").arg(p.toHtmlEscaped().replace('\n', QStringLiteral("<br>")));
  return html;
}

QScrollArea* scrollOf(QWidget* body) {
  auto* scroll = new QScrollArea;
  scroll->setWidget(body);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  return scroll;
}

QFont boldOf(QFont font) {
  font.setBold(true);
  return font;
}

QLabel* wrappingLabel(const char* name, Qt::TextFormat format = Qt::RichText) {
  auto* label = new QLabel;
  label->setObjectName(QString::fromLatin1(name));
  label->setWordWrap(true);
  label->setTextFormat(format);
  return label;
}

}  // namespace

LessonPanel::LessonPanel(LiveController& controller, QWidget* parent)
    : QWidget(parent), m_controller(controller) {
  setObjectName(QStringLiteral("lessonPanel"));
  setMinimumWidth(240);
  auto* layout = new QVBoxLayout(this);
  buildHeader(layout);
  layout->addWidget(buildPages(), 1);
  layout->addWidget(buildProgressRow());
  layout->addLayout(buildButtons());
  connectControls();
  showStep();
}

/// The title, the kernel line, the step's position with the glossary button, and what to
/// look at: the top of the panel, above the pages.
void LessonPanel::buildHeader(QVBoxLayout* layout) {
  m_title = wrappingLabel("lessonTitle", Qt::PlainText);
  m_title->setFont(boldOf(m_title->font()));
  // Which kernel the runs model, and which the story is about: small, under the title.
  m_kernel = wrappingLabel("lessonKernel", Qt::PlainText);
  QFont small = m_kernel->font();
  small.setItalic(true);
  small.setPointSizeF(small.pointSizeF() * 0.9);
  m_kernel->setFont(small);
  m_position = wrappingLabel("lessonPosition", Qt::PlainText);
  m_glossaryButton = new QPushButton(tr("Glossary"));
  m_glossaryButton->setObjectName(QStringLiteral("lessonGlossaryButton"));
  m_glossaryButton->setCheckable(true);
  m_glossaryButton->setToolTip(tr("Every term of the lesson, with the step that introduces it"));
  auto* positionRow = new QHBoxLayout;
  positionRow->addWidget(m_position, 1);
  positionRow->addWidget(m_glossaryButton, 0, Qt::AlignTop);
  // What to look at stays above the text, whatever the text's length: the students' eyes go
  // from it to the plots, where the same yellow marks the time range.
  m_lookAt = wrappingLabel("lessonLookAt");
  m_lookAtRow = new QWidget;
  auto* lookAtLayout = new QHBoxLayout(m_lookAtRow);
  lookAtLayout->setContentsMargins(0, 2, 0, 2);
  lookAtLayout->setSpacing(6);
  m_lookAtMark = new QFrame;
  m_lookAtMark->setFixedWidth(5);
  m_lookAtMark->setAutoFillBackground(true);
  lookAtLayout->addWidget(m_lookAtMark);
  lookAtLayout->addWidget(m_lookAt, 1);
  colourLookAtMark();

  layout->addWidget(m_title);
  layout->addWidget(m_kernel);
  layout->addLayout(positionRow);
  layout->addWidget(m_lookAtRow);
}

/// The step's page (caption, question, answer) and the glossary's, one shown at a time.
QStackedWidget* LessonPanel::buildPages() {
  // The caption and the terms the step introduces scroll when the panel is short.
  m_caption = wrappingLabel("lessonCaption");
  m_terms = wrappingLabel("lessonTerms");
  auto* captionBody = new QWidget;
  auto* captionLayout = new QVBoxLayout(captionBody);
  captionLayout->setContentsMargins(0, 0, 0, 0);
  captionLayout->addWidget(m_caption);
  captionLayout->addWidget(m_terms);
  captionLayout->addStretch();
  m_scroll = scrollOf(captionBody);
  m_scroll->setObjectName(QStringLiteral("lessonScroll"));

  // The question, its choices (or the number box) and the answer button are pinned below the
  // caption: at 1280x720 they are all in view while the class predicts, and they stay in view
  // when the answer comes (issue #26).
  m_question = wrappingLabel("lessonQuestion", Qt::PlainText);
  m_question->setFont(boldOf(m_question->font()));
  m_choices = new QWidget;
  m_choiceLayout = new QVBoxLayout(m_choices);
  m_choiceLayout->setContentsMargins(0, 0, 0, 0);
  m_choiceLayout->setSpacing(2);
  m_choiceGroup = new QButtonGroup(this);
  m_numberRow = new QWidget;
  auto* numberLayout = new QHBoxLayout(m_numberRow);
  numberLayout->setContentsMargins(0, 0, 0, 0);
  m_number = new QLineEdit;
  m_number->setObjectName(QStringLiteral("lessonNumber"));
  m_number->setPlaceholderText(tr("your prediction"));
  auto* validator = new QDoubleValidator(m_number);
  validator->setNotation(QDoubleValidator::StandardNotation);
  validator->setLocale(QLocale::c());
  m_number->setValidator(validator);
  m_unit = new QLabel;
  m_unit->setObjectName(QStringLiteral("lessonUnit"));
  numberLayout->addWidget(m_number, 1);
  numberLayout->addWidget(m_unit);
  m_answerButton = new QPushButton(tr("Answer and run"));
  m_answerButton->setObjectName(QStringLiteral("lessonAnswer"));
  m_answerButton->setToolTip(
      tr("Lock in your prediction; the step then runs and the answer "
         "is shown with the numbers it measured"));
  m_questionBox = new QWidget;
  m_questionBox->setObjectName(QStringLiteral("lessonQuestionBox"));
  auto* questionLayout = new QVBoxLayout(m_questionBox);
  questionLayout->setContentsMargins(0, 4, 0, 0);
  questionLayout->addWidget(m_question);
  questionLayout->addWidget(m_choices);
  questionLayout->addWidget(m_numberRow);
  questionLayout->addWidget(m_answerButton, 0, Qt::AlignLeft);
  // Its wrapped lines need a height that depends on the panel's width, which a box layout
  // does not give a widget beside a scroll area that would take it all: the box asks for it
  // as its minimum whenever its width or its text changes (fitQuestionBox()).
  m_questionBox->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Minimum);
  m_questionBox->installEventFilter(this);

  // The answer: its first layer, and the rest behind "More".
  m_reveal = wrappingLabel("lessonReveal");
  m_moreButton = new QPushButton(tr("More ▸"));
  m_moreButton->setObjectName(QStringLiteral("lessonMoreButton"));
  m_moreButton->setCheckable(true);
  m_moreButton->setToolTip(tr("The mechanism, the kernel versions and the sources"));
  m_more = wrappingLabel("lessonMore");
  auto* answerBody = new QWidget;
  auto* answerLayout = new QVBoxLayout(answerBody);
  answerLayout->setContentsMargins(0, 0, 0, 0);
  answerLayout->addWidget(m_reveal);
  answerLayout->addWidget(m_moreButton, 0, Qt::AlignLeft);
  answerLayout->addWidget(m_more);
  answerLayout->addStretch();
  m_answerScroll = scrollOf(answerBody);
  m_answerScroll->setObjectName(QStringLiteral("lessonAnswerScroll"));

  auto* stepPage = new QWidget;
  auto* stepLayout = new QVBoxLayout(stepPage);
  stepLayout->setContentsMargins(0, 0, 0, 0);
  stepLayout->addWidget(m_scroll, 1);
  stepLayout->addWidget(m_questionBox);
  stepLayout->addWidget(m_answerScroll, 2);
  m_glossary = wrappingLabel("lessonGlossary");
  m_glossary->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  m_glossaryScroll = scrollOf(m_glossary);
  m_pages = new QStackedWidget;
  m_pages->addWidget(stepPage);
  m_pages->addWidget(m_glossaryScroll);

  return m_pages;
}

/// Progress, and Cancel, for a step that takes more than a moment.
QWidget* LessonPanel::buildProgressRow() {
  m_progressRow = new QWidget;
  m_progressRow->setObjectName(QStringLiteral("lessonProgressRow"));
  auto* progressLayout = new QGridLayout(m_progressRow);
  progressLayout->setContentsMargins(0, 0, 0, 0);
  m_progressText = wrappingLabel("lessonProgressText", Qt::PlainText);
  m_progress = new QProgressBar;
  m_progress->setObjectName(QStringLiteral("lessonProgress"));
  m_progress->setRange(0, 1000);
  m_progress->setTextVisible(false);
  m_cancel = new QPushButton(tr("Cancel"));
  m_cancel->setObjectName(QStringLiteral("lessonCancel"));
  m_cancel->setToolTip(tr("Stop this step's run; Previous, Next or the step again go on"));
  progressLayout->addWidget(m_progressText, 0, 0, 1, 2);
  progressLayout->addWidget(m_progress, 1, 0);
  progressLayout->addWidget(m_cancel, 1, 1);
  m_progressRow->hide();
  m_progressTimer.setInterval(100);
  connect(&m_progressTimer, &QTimer::timeout, this, &LessonPanel::updateProgress);

  return m_progressRow;
}

/// Previous, All curves, Next.
QHBoxLayout* LessonPanel::buildButtons() {
  m_allCurves = new QCheckBox(tr("All curves"));
  m_allCurves->setObjectName(QStringLiteral("lessonAllCurves"));
  m_allCurves->setToolTip(tr("Show every curve of the plots, not only those this step is about"));
  m_previous = new QPushButton(tr("◀ Previous"));
  m_previous->setToolTip(tr("The previous step (Page Up)"));
  m_next_ = new QPushButton(tr("Next ▶"));
  m_next_->setToolTip(tr("The next step (Page Down)"));
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(m_previous);
  buttons->addStretch();
  buttons->addWidget(m_allCurves);
  buttons->addStretch();
  buttons->addWidget(m_next_);
  return buttons;
}

void LessonPanel::connectControls() {
  connect(m_previous, &QPushButton::clicked, this, &LessonPanel::previousStep);
  connect(m_next_, &QPushButton::clicked, this, &LessonPanel::nextStep);
  connect(m_answerButton, &QPushButton::clicked, this, [this] {
    const engine::LessonStep* s = step();
    if (!s || !s->question) return;
    if (s->question->numeric) {
      bool ok = false;
      const double guess = QLocale::c().toDouble(m_number->text().trimmed(), &ok);
      if (ok && std::isfinite(guess)) answerNumber(guess);
    } else if (m_choiceGroup->checkedId() >= 0) {
      answer(m_choiceGroup->checkedId());
    }
  });
  connect(m_number, &QLineEdit::returnPressed, m_answerButton, &QPushButton::click);
  connect(m_number, &QLineEdit::textChanged, this,
          [this] { m_answerButton->setEnabled(!m_answered && m_number->hasAcceptableInput()); });
  connect(m_moreButton, &QPushButton::toggled, this, &LessonPanel::showMore);
  connect(m_glossaryButton, &QPushButton::toggled, this, &LessonPanel::showGlossary);
  connect(m_allCurves, &QCheckBox::toggled, this, &LessonPanel::emitCurves);
  connect(m_cancel, &QPushButton::clicked, this, &LessonPanel::cancelStep);
  connect(&m_controller, &LiveController::runForFinished, this, [this] {
    if (!m_waitingRun) return;
    m_waitingRun = false;
    ++m_next;
    advance();
    showPosition();
  });
}

LessonPanel::~LessonPanel() {
  m_job.stopAndWait();
}

const engine::LessonStep* LessonPanel::step() const {
  if (m_index < 0 || m_index >= static_cast<int>(m_lesson.steps.size())) return nullptr;
  return &m_lesson.steps[static_cast<std::size_t>(m_index)];
}

void LessonPanel::setLesson(engine::Lesson lesson) {
  m_job.stopAndWait();
  ++m_measureGeneration;
  m_lesson = std::move(lesson);
  m_runner = std::make_unique<engine::LessonRunner>(m_lesson);
  m_index = -1;
  m_segments.clear();
  m_measurement.reset();
  m_glossaryButton->setChecked(false);
  showGlossaryText();
  showStep();
}

void LessonPanel::nextStep() {
  if (m_index + 1 < static_cast<int>(m_lesson.steps.size())) goToStep(m_index + 1);
}

void LessonPanel::previousStep() {
  if (m_index > 0) goToStep(m_index - 1);
}

void LessonPanel::goToStep(int index, bool autoAnswer) {
  if (index < 0 || index >= static_cast<int>(m_lesson.steps.size())) return;
  const engine::LessonStep& target = m_lesson.steps[static_cast<std::size_t>(index)];
  // Moving on by one step continues the run, if it still stands where the last step ended
  // (the user may have run it on meanwhile; then the step is replayed).
  const bool continues = index == m_index + 1 && m_liveDone && !m_cancelled && !target.scenario &&
                         target.view == engine::LessonView::Simulation && m_hasRun &&
                         std::abs(m_controller.status().simTimeS - m_runTimeS) < 1e-6;
  m_index = index;
  m_settled = false;
  m_liveDone = false;
  m_cancelled = false;
  m_answered.reset();
  m_guess.reset();
  m_waitingRun = false;
  m_waitingAnswer = target.question.has_value() && !autoAnswer;
  m_segments.clear();
  m_next = 0;
  m_glossaryButton->setChecked(false);
  m_moreButton->setChecked(false);
  // Predict, then reveal: a step with a question shows nothing of its run before the answer.
  // The live run may be going (the window runs on its own): it stops here, before anything is
  // loaded, and the step's runs are driven by runFor() alone.
  if (target.view == engine::LessonView::Simulation && m_waitingAnswer && m_controller.isRunning())
    m_controller.setRunning(false);
  Q_EMIT hostViewRequested(target.view == engine::LessonView::Host);
  if (!target.plots.empty()) {
    QStringList plots;
    for (const auto& p : target.plots) plots << QString::fromStdString(p);
    Q_EMIT plotsRequested(plots);
  }
  Q_EMIT highlightRequested(target.highlight);
  emitCurves();
  m_runFromS = m_controller.status().simTimeS;
  if (target.view == engine::LessonView::Simulation) {
    const engine::LessonPlan plan = engine::planLessonStep(m_lesson, index);
    if (continues) {
      m_segments.push_back({plan.scenario(), plan.stepToS(), true});
    } else if (!plan.segments.empty()) {
      m_controller.load(plan.segments.front().scenario);
      m_runTimeS = 0;
      m_runFromS = 0;
      m_hasRun = true;
      for (std::size_t i = 0; i < plan.segments.size(); ++i)
        m_segments.push_back({plan.segments[i].scenario, plan.segments[i].toS, i > 0});
    }
  }
  if (autoAnswer && target.question) {
    if (target.question->numeric)
      m_guess = target.question->numeric->expected;
    else
      m_answered = target.question->answer;
  }
  // The figures are measured while the class predicts.
  startMeasuring();
  m_runClock.start();
  m_progressTimer.start();
  showStep();
  advance();
  showPosition();
}

void LessonPanel::advance() {
  while (m_next < m_segments.size()) {
    Segment& seg = m_segments[m_next];
    if (seg.reconfigure) {
      seg.reconfigure = false;
      const QString error = m_controller.reconfigure(seg.scenario);
      if (!error.isEmpty()) Q_EMIT problem(error);
      Q_EMIT scenarioChanged();
    }
    if (m_next + 1 == m_segments.size() && m_waitingAnswer) {  // predict first
      Q_EMIT questionWaiting();
      return;
    }
    if (seg.toS > m_runTimeS + 1e-9) {
      m_waitingRun = true;
      m_runTimeS = seg.toS;
      m_controller.runFor(seg.toS);
      return;
    }
    ++m_next;
  }
  liveDone();
}

void LessonPanel::liveDone() {
  m_liveDone = true;
  settleIfDone();
}

void LessonPanel::settleIfDone() {
  if (!m_liveDone || m_measuring || m_settled || m_cancelled) return;
  m_settled = true;
  m_progressTimer.stop();
  m_progressRow->hide();
  showStep();
  Q_EMIT stepReady();
}

void LessonPanel::startMeasuring() {
  m_job.stopAndWait();  // a step left before its figures came: they are not wanted
  const std::uint64_t generation = ++m_measureGeneration;
  m_measurement.reset();
  m_measureError.clear();
  m_measureDoneS = 0;
  m_measureTotalS = 0;
  const engine::LessonStep* s = step();
  if (!s || !m_runner || (s->view == engine::LessonView::Host && !s->scenario)) {
    m_measuring = false;
    return;
  }
  m_measuring = true;
  engine::LessonRunner* runner = m_runner.get();
  const int index = m_index;
  m_job.start(
      [this, runner, index, generation](std::stop_token stop, const BackgroundJob::Gui& gui) {
        const auto progress = [&](double done, double total) {
          gui.report([this, generation, done, total] {
            if (generation != m_measureGeneration) return;
            m_measureDoneS = done;
            m_measureTotalS = total;
          });
        };
        std::shared_ptr<engine::LessonMeasurement> m;
        QString error;
        try {
          m = std::make_shared<engine::LessonMeasurement>(runner->measure(index, progress, stop));
        } catch (const engine::RunCancelled&) {
          return std::function<void()>();
        } catch (const std::exception& e) {
          error = QString::fromUtf8(e.what());
        }
        return std::function<void()>([this, generation, m, error] {
          if (generation == m_measureGeneration) measured(m, error);
        });
      });
}

void LessonPanel::measured(std::shared_ptr<engine::LessonMeasurement> m, const QString& error) {
  m_measuring = false;
  if (m) m_measurement = std::move(*m);
  m_measureError = error;
  if (!error.isEmpty())
    Q_EMIT problem(tr("the step's figures could not be measured: %1").arg(error));
  if (m_settled) return;
  settleIfDone();
}

void LessonPanel::cancelStep() {
  if (m_settled || m_index < 0) return;
  m_cancelled = true;
  if (m_waitingRun) {
    m_waitingRun = false;
    m_controller.setRunning(false);
    m_runTimeS = -1;  // the run stands nowhere a step ends: the next step replays
  }
  m_job.stopAndWait();
  ++m_measureGeneration;
  m_measuring = false;
  m_progressTimer.stop();
  m_progressRow->hide();
  showStep();
}

void LessonPanel::updateProgress() {
  const engine::LessonStep* s = step();
  const bool busy =
      !m_settled && !m_cancelled && (m_waitingRun || (m_measuring && !m_waitingAnswer));
  if (!s || !busy) {
    m_progressRow->hide();
    if (!busy && !m_measuring) m_progressTimer.stop();
    return;
  }
  if (m_runClock.elapsed() < kProgressAfterMs) return;
  // The slower of the two: the live run to the step's end, the measurement of its figures.
  const double toS = m_segments.empty() ? 0 : m_segments.back().toS;
  const double live =
      m_waitingRun && toS > m_runFromS
          ? std::clamp((m_controller.status().simTimeS - m_runFromS) / (toS - m_runFromS), 0.0, 1.0)
          : 1.0;
  const double measure = !m_measuring ? 1.0
                         : m_measureTotalS > 0
                             ? std::clamp(m_measureDoneS / m_measureTotalS, 0.0, 1.0)
                             : 0.0;
  const double share = std::min(live, measure);
  m_progress->setValue(static_cast<int>(std::lround(share * 1000)));
  const double seconds = m_waitingRun && toS > m_runFromS ? toS - m_runFromS : m_measureTotalS;
  m_progressText->setText(tr("Running the step: %1 % of %2 simulated seconds")
                              .arg(static_cast<int>(std::floor(share * 100)))
                              .arg(seconds, 0, 'f', 0));
  m_progressRow->show();
}

void LessonPanel::answer(int choice) {
  const engine::LessonStep* s = step();
  if (!s || !s->question || s->question->numeric || choice < 0 ||
      choice >= static_cast<int>(s->question->choices.size()))
    return;
  lockIn(*s, [this, choice] { m_answered = choice; });
}

void LessonPanel::answerNumber(double guess) {
  const engine::LessonStep* s = step();
  if (!s || !s->question || !s->question->numeric || !std::isfinite(guess)) return;
  lockIn(*s, [this, guess] { m_guess = guess; });
}

void LessonPanel::lockIn(const engine::LessonStep& s, const std::function<void()>& record) {
  const bool wasWaiting = m_waitingAnswer;
  // Run on by hand while the question waited: the step starts again from where it began, so
  // that what it shows is its own run.
  if (wasWaiting && !m_waitingRun && m_hasRun && s.view == engine::LessonView::Simulation &&
      std::abs(m_controller.status().simTimeS - m_runTimeS) > 1e-6)
    goToStep(m_index);
  record();
  m_waitingAnswer = false;
  m_runClock.start();
  m_progressTimer.start();
  showStep();
  // While the run is still on its way to the step's start, the step runs once it is there.
  if (wasWaiting && !m_waitingRun) advance();
  showPosition();
}

QString LessonPanel::revealText() const {
  return m_reveal->text();
}

QString LessonPanel::moreText() const {
  return m_more->text();
}

void LessonPanel::showMore(bool on) {
  if (m_moreButton->isChecked() != on) {
    m_moreButton->setChecked(on);  // re-enters through toggled
    return;
  }
  m_moreButton->setText(on ? tr("Less ▾") : tr("More ▸"));
  m_more->setVisible(on && !m_more->text().isEmpty());
}

void LessonPanel::showGlossary(bool on) {
  if (m_glossaryButton->isChecked() != on) {
    m_glossaryButton->setChecked(on);
    return;
  }
  m_pages->setCurrentIndex(on ? 1 : 0);
  m_glossaryButton->setText(on ? tr("Back to the step") : tr("Glossary"));
}

QStringList LessonPanel::glossaryEntries() const {
  std::map<QString, QString> entries;  // by the term in lower case: alphabetical
  for (std::size_t i = 0; i < m_lesson.steps.size(); ++i)
    for (const engine::LessonTerm& t : m_lesson.steps[i].terms) {
      const QString term = QString::fromStdString(t.term);
      entries.emplace(
          term.toLower(),
          tr("%1 (step %2): %3").arg(term).arg(i + 1).arg(QString::fromStdString(t.definition)));
    }
  QStringList out;
  for (const auto& [key, line] : entries) out << line;
  return out;
}

void LessonPanel::showGlossaryText() {
  std::map<QString, std::pair<int, QString>> entries;
  std::vector<std::pair<QString, QString>> order;
  for (std::size_t i = 0; i < m_lesson.steps.size(); ++i)
    for (const engine::LessonTerm& t : m_lesson.steps[i].terms)
      entries.emplace(QString::fromStdString(t.term).toLower(),
                      std::pair(static_cast<int>(i) + 1,
                                QStringLiteral("<p><b>%1</b> <i>(%2)</i><br>%3</p>")
                                    .arg(QString::fromStdString(t.term).toHtmlEscaped(),
                                         tr("step %1").arg(i + 1),
                                         QString::fromStdString(t.definition).toHtmlEscaped())));
  QString html;
  for (const auto& [key, entry] : entries) html += entry.second;
  m_glossary->setText(html.isEmpty() ? tr("<i>This lesson defines no terms.</i>") : html);
  m_glossaryButton->setVisible(!entries.empty());
}

bool LessonPanel::allCurves() const {
  return m_allCurves->isChecked();
}

void LessonPanel::setAllCurves(bool all) {
  m_allCurves->setChecked(all);
}

void LessonPanel::emitCurves() {
  const engine::LessonStep* s = step();
  const bool named = s && !s->curves.empty();
  m_allCurves->setVisible(named);
  Q_EMIT curvesRequested(named && !m_allCurves->isChecked() ? s->curves
                                                            : std::vector<engine::LessonCurves>{});
}

void LessonPanel::colourLookAtMark() {
  // The yellow of the band that marks the step's time range on the plots.
  const Theme theme = Theme::fromPalette(palette(), font(), false);
  QPalette p = m_lookAtMark->palette();
  p.setColor(QPalette::Window, theme.colour(SeriesColour::Yellow));
  m_lookAtMark->setPalette(p);
}

bool LessonPanel::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_questionBox && event->type() == QEvent::Resize) fitQuestionBox();
  return QWidget::eventFilter(watched, event);
}

void LessonPanel::fitQuestionBox() {
  QLayout* layout = m_questionBox->layout();
  layout->activate();
  const int width = m_questionBox->width();
  const int height = layout->hasHeightForWidth() ? layout->totalHeightForWidth(width)
                                                 : layout->totalSizeHint().height();
  if (height != m_questionBox->minimumHeight()) m_questionBox->setMinimumHeight(height);
}

void LessonPanel::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange) colourLookAtMark();
  QWidget::changeEvent(event);
}

QString LessonPanel::positionText() const {
  return m_position->text();
}

QString LessonPanel::lookAtText() const {
  return m_lookAt->text();
}

void LessonPanel::showPosition() {
  const int count = static_cast<int>(m_lesson.steps.size());
  const engine::LessonStep* s = step();
  if (!s) {
    m_position->setText(count ? tr("%n step(s); Page Down to begin", nullptr, count) : QString());
    return;
  }
  QString state;
  if (m_cancelled)
    state = tr("cancelled; Previous or Next to go on");
  else if (m_settled || s->view != engine::LessonView::Simulation)
    state = QString();
  else if (m_waitingAnswer && m_waitingRun)
    state = tr("getting the run to the step's start; answer meanwhile");
  else if (m_waitingAnswer)
    state = tr("paused until you answer");
  else if (m_waitingRun)
    state = tr("running…");
  else if (m_measuring)
    state = tr("measuring…");
  m_position->setText(tr("Step %1 of %2").arg(m_index + 1).arg(count) +
                      (state.isEmpty() ? QString() : QStringLiteral(" — ") + state));
}

QString LessonPanel::filled(const std::string& text) const {
  if (m_measurement) {
    try {
      return QString::fromStdString(engine::fillLessonText(text, *m_measurement));
    } catch (const std::exception&) {
      // The lesson was checked when it loaded: only a figure it cannot give ends here.
    }
  }
  // Before the figures come: each placeholder as "…".
  QString out;
  bool inside = false;
  for (const QChar c : QString::fromStdString(text)) {
    if (c == '{') {
      inside = true;
      out += QStringLiteral("…");
    } else if (c == '}') {
      inside = false;
    } else if (!inside) {
      out += c;
    }
  }
  return out;
}

void LessonPanel::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  fitKernelLine();
}

void LessonPanel::fitKernelLine() {
  const bool whole = m_index <= 0;
  m_kernel->setWordWrap(whole);
  // Elided, the line must not ask for its whole text's width and so widen the panel.
  QSizePolicy policy = m_kernel->sizePolicy();
  policy.setHorizontalPolicy(whole ? QSizePolicy::Preferred : QSizePolicy::Ignored);
  m_kernel->setSizePolicy(policy);
  m_kernel->setToolTip(whole ? QString() : m_kernelText);
  if (whole) {
    m_kernel->setText(m_kernelText);
    return;
  }
  const int width = std::max(40, m_kernel->contentsRect().width());
  m_kernel->setText(m_kernel->fontMetrics().elidedText(m_kernelText, Qt::ElideRight, width));
}

void LessonPanel::showStep() {
  const int count = static_cast<int>(m_lesson.steps.size());
  m_title->setText(QString::fromStdString(m_lesson.title));
  m_kernelText = QString::fromStdString(m_lesson.kernel);
  m_kernel->setVisible(!m_kernelText.isEmpty());
  fitKernelLine();
  m_previous->setEnabled(m_index > 0);
  m_next_->setEnabled(m_index + 1 < count);
  while (QLayoutItem* item = m_choiceLayout->takeAt(0)) {
    delete item->widget();
    delete item;
  }
  m_reveal->clear();
  m_more->clear();
  m_more->hide();
  m_moreButton->hide();
  m_answerScroll->hide();
  showPosition();
  const engine::LessonStep* s = step();
  if (!s) {
    m_lookAt->clear();
    m_lookAtRow->hide();
    m_caption->setText(paragraphs(QString::fromStdString(m_lesson.description)));
    m_terms->hide();
    m_questionBox->hide();
    m_allCurves->hide();
    return;
  }
  if (s->highlight) {
    QStringList what;
    for (const auto& c : s->highlight->curves) what << QString::fromStdString(c).toHtmlEscaped();
    QString range;
    if (s->highlight->fromS || s->highlight->toS)
      range = tr(" from %1 s to %2 s")
                  .arg(s->highlight->fromS.value_or(0))
                  .arg(s->highlight->toS ? QString::number(*s->highlight->toS) : tr("now"));
    m_lookAt->setText(
        tr("<i>Look at: the %1 plot%2%3.</i>")
            .arg(QString::fromStdString(s->highlight->plot).toHtmlEscaped(),
                 what.isEmpty() ? QString() : QStringLiteral(" (") + what.join(", ") + ")", range));
    m_lookAtRow->show();
  } else {
    m_lookAt->clear();
    m_lookAtRow->hide();
  }
  m_caption->setText(paragraphs(filled(s->caption)));
  // The terms this step introduces, under its caption.
  QString terms;
  for (const engine::LessonTerm& t : s->terms)
    terms += QStringLiteral("<p><b>%1</b>: %2</p>")
                 .arg(QString::fromStdString(t.term).toHtmlEscaped(),
                      filled(t.definition).toHtmlEscaped());
  m_terms->setText(terms);
  m_terms->setVisible(!terms.isEmpty());
  const bool asked = s->question.has_value();
  m_questionBox->setVisible(asked);
  if (!asked) return;
  const engine::LessonQuestion& q = *s->question;
  const bool answered = m_answered.has_value() || m_guess.has_value();
  m_question->setText(QString::fromStdString(q.text));
  m_choices->setVisible(!q.numeric);
  m_numberRow->setVisible(q.numeric.has_value());
  m_answerButton->setVisible(!answered);
  if (q.numeric) {
    m_unit->setText(QString::fromStdString(q.numeric->unit));
    m_number->setEnabled(!answered);
    if (m_guess)
      m_number->setText(QLocale::c().toString(*m_guess, 'g', 12));
    else if (!answered)
      m_number->clear();
    m_answerButton->setEnabled(m_number->hasAcceptableInput());
  } else {
    m_answerButton->setEnabled(true);
  }
  for (std::size_t i = 0; i < q.choices.size(); ++i) {
    // A radio button does not wrap its text: the letter is the button, the text a label
    // beside it, so that a long choice does not widen the panel past a projector's screen.
    auto* row = new QWidget;
    auto* rowLayout = new QHBoxLayout(row);
    rowLayout->setContentsMargins(0, 0, 0, 0);
    auto* b = new QRadioButton(QStringLiteral("%1)").arg(QChar('A' + static_cast<int>(i))));
    b->setObjectName(QStringLiteral("lessonChoice%1").arg(i));
    b->setEnabled(!answered);
    if (m_answered && *m_answered == static_cast<int>(i)) b->setChecked(true);
    m_choiceGroup->addButton(b, static_cast<int>(i));
    auto* text = new QLabel(QString::fromStdString(q.choices[i]));
    text->setObjectName(QStringLiteral("lessonChoiceText%1").arg(i));
    text->setWordWrap(true);
    // Once answered, the keyed choice is the one in bold.
    if (answered && m_settled && static_cast<int>(i) == q.answer) {
      QFont f = text->font();
      f.setBold(true);
      text->setFont(f);
    }
    rowLayout->addWidget(b, 0, Qt::AlignTop);
    rowLayout->addWidget(text, 1);
    m_choiceLayout->addWidget(row);
  }
  fitQuestionBox();
  if (answered && m_settled) {
    showReveal();
  } else if (answered && !m_cancelled) {
    m_reveal->setText(tr("<i>Running the step…</i>"));
    m_answerScroll->show();
  }
}

void LessonPanel::showReveal() {
  const engine::LessonQuestion& q = *step()->question;
  QString verdict;
  if (q.numeric) {
    const double measured =
        m_measurement ? engine::lessonFigureValue(q.numeric->figure, *m_measurement) : std::nan("");
    const QString unit = QString::fromStdString(q.numeric->unit).toHtmlEscaped();
    const auto number = [](double v) {
      return QString::fromStdString(engine::formatLessonNumber(v));
    };
    const bool within = m_guess && engine::lessonGuessWithin(*q.numeric, measured, *m_guess);
    verdict =
        tr("<b>Measured: %1 %2. Your prediction: %3 %2 — %4 (within %5 %2 counts).</b>")
            .arg(number(measured), unit, m_guess ? number(*m_guess) : QStringLiteral("–"),
                 within ? tr("right") : tr("not within it"), number(q.numeric->toleranceValue()));
  } else {
    verdict = (m_answered && *m_answered == q.answer ? tr("<b>Right: %1.</b>")
                                                     : tr("<b>The answer is %1.</b>"))
                  .arg(QChar('A' + q.answer));
  }
  QString text = filled(q.reveal);
  if (!m_measureError.isEmpty())
    text = tr("(the numbers could not be measured: %1)").arg(m_measureError);
  m_reveal->setText(verdict + paragraphs(text));
  m_more->setText(paragraphs(filled(q.more)));
  m_moreButton->setVisible(!q.more.empty());
  m_more->setVisible(!q.more.empty() && m_moreButton->isChecked());
  m_answerScroll->show();
  keepQuestionInView();
}

void LessonPanel::keepQuestionInView() {
  // The question is pinned; the answer's first lines are at the top of its own area.
  QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
  m_answerScroll->verticalScrollBar()->setValue(0);
}

}  // namespace throttlelab::ui
