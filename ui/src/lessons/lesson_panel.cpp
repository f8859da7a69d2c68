// SPDX-License-Identifier: GPL-3.0-or-later
#include "lesson_panel.h"

#include <QButtonGroup>
#include <QCoreApplication>
#include <QEvent>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QRadioButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "live_controller.h"
#include "theme.h"

namespace throttlelab::ui {

namespace {
/// Plain text with blank lines as paragraphs, for a rich-text label.
QString paragraphs(const std::string& text) {
  QString html;
  for (const QString& p : QString::fromStdString(text).split(QStringLiteral("\n\n")))
    html +=
        QStringLiteral("<p>%1</p>").arg(p.toHtmlEscaped().replace('\n', QStringLiteral("<br>")));
  return html;
}
}  // namespace

LessonPanel::LessonPanel(LiveController& controller, QWidget* parent)
    : QWidget(parent), m_controller(controller) {
  setObjectName(QStringLiteral("lessonPanel"));
  setMinimumWidth(240);
  auto* layout = new QVBoxLayout(this);
  m_title = new QLabel;
  m_title->setObjectName(QStringLiteral("lessonTitle"));
  m_title->setWordWrap(true);
  QFont bold = m_title->font();
  bold.setBold(true);
  m_title->setFont(bold);
  m_position = new QLabel;
  m_position->setObjectName(QStringLiteral("lessonPosition"));
  m_position->setWordWrap(true);
  // What to look at stays above the text, whatever the text's length: the students' eyes go
  // from it to the plots, where the same yellow marks the time range.
  m_lookAt = new QLabel;
  m_lookAt->setObjectName(QStringLiteral("lessonLookAt"));
  m_lookAt->setWordWrap(true);
  m_lookAt->setTextFormat(Qt::RichText);
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
  m_caption = new QLabel;
  m_caption->setObjectName(QStringLiteral("lessonCaption"));
  m_caption->setWordWrap(true);
  m_caption->setTextFormat(Qt::RichText);
  m_question = new QLabel;
  m_question->setObjectName(QStringLiteral("lessonQuestion"));
  m_question->setWordWrap(true);
  m_question->setFont(bold);
  m_choices = new QWidget;
  m_choiceLayout = new QVBoxLayout(m_choices);
  m_choiceLayout->setContentsMargins(0, 0, 0, 0);
  m_choiceGroup = new QButtonGroup(this);
  m_answerButton = new QPushButton(tr("Answer and run"));
  m_answerButton->setObjectName(QStringLiteral("lessonAnswer"));
  m_answerButton->setToolTip(
      tr("Lock in your prediction; the step then runs and the answer "
         "is shown with the numbers it measured"));
  m_reveal = new QLabel;
  m_reveal->setObjectName(QStringLiteral("lessonReveal"));
  m_reveal->setWordWrap(true);
  m_reveal->setTextFormat(Qt::RichText);
  m_previous = new QPushButton(tr("◀ Previous"));
  m_previous->setToolTip(tr("The previous step (Page Up)"));
  m_next_ = new QPushButton(tr("Next ▶"));
  m_next_->setToolTip(tr("The next step (Page Down)"));
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(m_previous);
  buttons->addStretch();
  buttons->addWidget(m_next_);
  // The caption, question and answer scroll when a short screen has no room for them all,
  // rather than being squeezed until lines vanish.
  auto* body = new QWidget;
  auto* bodyLayout = new QVBoxLayout(body);
  bodyLayout->setContentsMargins(0, 0, 0, 0);
  bodyLayout->addWidget(m_caption);
  bodyLayout->addWidget(m_question);
  bodyLayout->addWidget(m_choices);
  bodyLayout->addWidget(m_answerButton);
  bodyLayout->addWidget(m_reveal);
  bodyLayout->addStretch();
  m_scroll = new QScrollArea;
  m_scroll->setObjectName(QStringLiteral("lessonScroll"));
  m_scroll->setWidget(body);
  m_scroll->setWidgetResizable(true);
  m_scroll->setFrameShape(QFrame::NoFrame);
  m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  layout->addWidget(m_title);
  layout->addWidget(m_position);
  layout->addWidget(m_lookAtRow);
  layout->addWidget(m_scroll, 1);
  layout->addLayout(buttons);
  connect(m_previous, &QPushButton::clicked, this, &LessonPanel::previousStep);
  connect(m_next_, &QPushButton::clicked, this, &LessonPanel::nextStep);
  connect(m_answerButton, &QPushButton::clicked, this, [this] {
    if (m_choiceGroup->checkedId() >= 0) answer(m_choiceGroup->checkedId());
  });
  connect(&m_controller, &LiveController::runForFinished, this, [this] {
    if (!m_waitingRun) return;
    m_waitingRun = false;
    ++m_next;
    advance();
    showPosition();
  });
  showStep();
}

void LessonPanel::setLesson(engine::Lesson lesson) {
  m_lesson = std::move(lesson);
  m_index = -1;
  m_segments.clear();
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
  const engine::LessonStep& step = m_lesson.steps[static_cast<std::size_t>(index)];
  // Moving on by one step continues the run, if it still stands where the last step ended
  // (the user may have run it on meanwhile; then the step is replayed).
  const bool continues = index == m_index + 1 && m_settled && !step.scenario &&
                         step.view == engine::LessonView::Simulation && m_hasRun &&
                         std::abs(m_controller.status().simTimeS - m_runTimeS) < 1e-6;
  m_index = index;
  m_settled = false;
  m_answered.reset();
  m_waitingRun = false;
  m_waitingAnswer = step.question.has_value() && !autoAnswer;
  m_segments.clear();
  m_next = 0;
  // Predict, then reveal: a step with a question shows nothing of its run before the answer.
  // The live run may be going (the window runs on its own): it stops here, before anything is
  // loaded, and the step's runs are driven by runFor() alone.
  if (step.view == engine::LessonView::Simulation && m_waitingAnswer && m_controller.isRunning())
    m_controller.setRunning(false);
  Q_EMIT hostViewRequested(step.view == engine::LessonView::Host);
  if (!step.plots.empty()) {
    QStringList plots;
    for (const auto& p : step.plots) plots << QString::fromStdString(p);
    Q_EMIT plotsRequested(plots);
  }
  Q_EMIT highlightRequested(step.highlight);
  if (step.view == engine::LessonView::Simulation) {
    const engine::LessonPlan plan = engine::planLessonStep(m_lesson, index);
    if (continues) {
      m_segments.push_back({plan.scenario(), plan.stepToS(), true});
    } else if (!plan.segments.empty()) {
      m_controller.load(plan.segments.front().scenario);
      m_runTimeS = 0;
      m_hasRun = true;
      for (std::size_t i = 0; i < plan.segments.size(); ++i)
        m_segments.push_back({plan.segments[i].scenario, plan.segments[i].toS, i > 0});
    }
  }
  if (autoAnswer && step.question) m_answered = step.question->answer;
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
    if (m_next + 1 == m_segments.size() && m_waitingAnswer) return;  // predict first
    if (seg.toS > m_runTimeS + 1e-9) {
      m_waitingRun = true;
      m_runTimeS = seg.toS;
      m_controller.runFor(seg.toS);
      return;
    }
    ++m_next;
  }
  finishStep();
}

void LessonPanel::finishStep() {
  m_settled = true;
  showStep();
  Q_EMIT stepReady();
}

void LessonPanel::answer(int choice) {
  if (m_index < 0) return;
  const auto& step = m_lesson.steps[static_cast<std::size_t>(m_index)];
  if (!step.question || choice < 0 || choice >= static_cast<int>(step.question->choices.size()))
    return;
  const bool wasWaiting = m_waitingAnswer;
  // Run on by hand while the question waited: the step starts again from where it began, so
  // that what it shows is its own run.
  if (wasWaiting && !m_waitingRun && m_hasRun && step.view == engine::LessonView::Simulation &&
      std::abs(m_controller.status().simTimeS - m_runTimeS) > 1e-6)
    goToStep(m_index);
  m_answered = choice;
  m_waitingAnswer = false;
  showStep();
  // While the run is still on its way to the step's start, the step runs once it is there.
  if (wasWaiting && !m_waitingRun) advance();
  showPosition();
}

QString LessonPanel::revealText() const {
  return m_reveal->isVisible() || !m_reveal->text().isEmpty() ? m_reveal->text() : QString();
}

void LessonPanel::colourLookAtMark() {
  // The yellow of the band that marks the step's time range on the plots.
  const Theme theme = Theme::fromPalette(palette(), font(), false);
  QPalette p = m_lookAtMark->palette();
  p.setColor(QPalette::Window, theme.colour(SeriesColour::Yellow));
  m_lookAtMark->setPalette(p);
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
  if (m_index < 0 || m_index >= count) {
    m_position->setText(count ? tr("%n step(s); Page Down to begin", nullptr, count) : QString());
    return;
  }
  const engine::LessonStep& step = m_lesson.steps[static_cast<std::size_t>(m_index)];
  QString state;
  if (m_settled || step.view != engine::LessonView::Simulation)
    state = QString();
  else if (m_waitingAnswer && m_waitingRun)
    state = tr("getting the run to the step's start; answer meanwhile");
  else if (m_waitingAnswer)
    state = tr("paused until you answer");
  else if (m_waitingRun)
    state = tr("running…");
  m_position->setText(tr("Step %1 of %2").arg(m_index + 1).arg(count) +
                      (state.isEmpty() ? QString() : QStringLiteral(" — ") + state));
}

void LessonPanel::showStep() {
  const int count = static_cast<int>(m_lesson.steps.size());
  m_title->setText(QString::fromStdString(m_lesson.title));
  m_previous->setEnabled(m_index > 0);
  m_next_->setEnabled(m_index + 1 < count);
  while (QLayoutItem* item = m_choiceLayout->takeAt(0)) {
    delete item->widget();
    delete item;
  }
  m_reveal->clear();
  showPosition();
  if (m_index < 0 || m_index >= count) {
    m_lookAt->clear();
    m_lookAtRow->hide();
    m_caption->setText(paragraphs(m_lesson.description));
    m_question->hide();
    m_choices->hide();
    m_answerButton->hide();
    return;
  }
  const engine::LessonStep& step = m_lesson.steps[static_cast<std::size_t>(m_index)];
  if (step.highlight) {
    QStringList what;
    for (const auto& c : step.highlight->curves) what << QString::fromStdString(c).toHtmlEscaped();
    QString range;
    if (step.highlight->fromS || step.highlight->toS)
      range = tr(" from %1 s to %2 s")
                  .arg(step.highlight->fromS.value_or(0))
                  .arg(step.highlight->toS ? QString::number(*step.highlight->toS) : tr("now"));
    m_lookAt->setText(
        tr("<i>Look at: the %1 plot%2%3.</i>")
            .arg(QString::fromStdString(step.highlight->plot).toHtmlEscaped(),
                 what.isEmpty() ? QString() : QStringLiteral(" (") + what.join(", ") + ")", range));
    m_lookAtRow->show();
  } else {
    m_lookAt->clear();
    m_lookAtRow->hide();
  }
  m_caption->setText(paragraphs(step.caption));
  const bool asked = step.question.has_value();
  m_question->setVisible(asked);
  m_choices->setVisible(asked);
  m_answerButton->setVisible(asked && !m_answered);
  if (!asked) return;
  const engine::LessonQuestion& q = *step.question;
  m_question->setText(QString::fromStdString(q.text));
  for (std::size_t i = 0; i < q.choices.size(); ++i) {
    // A radio button does not wrap its text: the letter is the button, the text a label
    // beside it, so that a long choice does not widen the panel past a projector's screen.
    auto* row = new QWidget;
    auto* rowLayout = new QHBoxLayout(row);
    rowLayout->setContentsMargins(0, 0, 0, 0);
    auto* b = new QRadioButton(QStringLiteral("%1)").arg(QChar('A' + static_cast<int>(i))));
    b->setObjectName(QStringLiteral("lessonChoice%1").arg(i));
    b->setEnabled(!m_answered);
    if (m_answered && *m_answered == static_cast<int>(i)) b->setChecked(true);
    m_choiceGroup->addButton(b, static_cast<int>(i));
    auto* text = new QLabel(QString::fromStdString(q.choices[i]));
    text->setWordWrap(true);
    rowLayout->addWidget(b, 0, Qt::AlignTop);
    rowLayout->addWidget(text, 1);
    m_choiceLayout->addWidget(row);
  }
  if (m_answered && m_settled) {
    QString verdict =
        *m_answered == q.answer ? tr("<b>Right: %1.</b>") : tr("<b>The answer is %1.</b>");
    verdict = verdict.arg(QChar('A' + q.answer));
    QString filled;
    try {
      filled = QString::fromStdString(
          engine::fillLessonText(q.reveal, engine::measureLessonStep(m_lesson, m_index)));
    } catch (const std::exception& e) {
      filled = tr("(the numbers could not be measured: %1)").arg(QString::fromUtf8(e.what()));
    }
    m_reveal->setText(verdict + paragraphs(filled.toStdString()));
    // The answer is what the class reads next: once laid out, it goes to the top of the view
    // (as much of it in view as fits; the question above is a scroll away).
    const auto toReveal = [this] {
      // The scroll area learns the text's new height from the layout requests it posted.
      QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
      QScrollBar* bar = m_scroll->verticalScrollBar();
      bar->setValue(std::min(bar->maximum(), m_reveal->y()));
    };
    toReveal();
    QTimer::singleShot(0, this, toReveal);  // again once the scroll area has its new range
  } else if (m_answered) {
    m_reveal->setText(tr("<i>Running the step…</i>"));
  }
}

}  // namespace throttlelab::ui
