// SPDX-License-Identifier: GPL-3.0-or-later
#include "getting_started_panel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace throttlelab::ui {

namespace {
constexpr int kWidth = 280;

/// One way in: a button that says what it does, and a line or two of what the user will see.
QPushButton* addChoice(QVBoxLayout* layout, const QString& objectName, const QString& title,
                       const QString& description) {
  auto* button = new QPushButton(title);
  button->setObjectName(objectName);
  button->setToolTip(description);
  QFont bold = button->font();
  bold.setBold(true);
  button->setFont(bold);
  button->setStyleSheet(QStringLiteral("text-align: left; padding: 4px 8px;"));
  auto* text = new QLabel(description);
  text->setWordWrap(true);
  text->setContentsMargins(8, 0, 0, 6);
  layout->addWidget(button);
  layout->addWidget(text);
  return button;
}
}  // namespace

GettingStartedPanel::GettingStartedPanel(const QString& lessonName, const QString& lessonTitle,
                                         const QString& defaultRunText, QWidget* parent)
    : QWidget(parent) {
  setObjectName(QStringLiteral("gettingStartedPanel"));
  auto* layout = new QVBoxLayout(this);
  auto* heading = new QLabel(tr("<b>Where to begin</b> — one click each:"));
  heading->setWordWrap(true);
  layout->addWidget(heading);

  m_lesson = addChoice(layout, QStringLiteral("firstLessonButton"), tr("▶ The first lesson"),
                       lessonName.isEmpty()
                           ? tr("No lesson is built in.")
                           : tr("“%1”: each step asks a question, the class predicts, the run "
                                "answers. Page Down moves on.")
                                 .arg(lessonTitle));
  m_lesson->setEnabled(!lessonName.isEmpty());
  m_defaultRun = addChoice(layout, QStringLiteral("defaultRunButton"), tr("▶ The default run"),
                           tr("%1 Change any control under Parameters; click a writer's curve to "
                              "see why it waits.")
                               .arg(defaultRunText));
  m_openTrace =
      addChoice(layout, QStringLiteral("openTraceButton"), tr("Open a real kernel trace…"),
                tr("Your kernel's writeback tracepoints (ftrace, trace-cmd or perf "
                   "script text) over their simulation."));
  m_presenter = addChoice(layout, QStringLiteral("presenterButton"), tr("Presenter mode"),
                          tr("Large fonts, two or three plots for a projector "
                             "(Ctrl+Shift+P)."));
  m_presenter->setCheckable(true);

  m_dismiss = new QPushButton(tr("Don't show at start"));
  m_dismiss->setObjectName(QStringLiteral("dismissButton"));
  m_dismiss->setToolTip(tr("Help ▸ Getting started brings this panel back"));
  auto* back = new QLabel(tr("Help ▸ Getting started brings it back."));
  back->setWordWrap(true);
  auto* row = new QHBoxLayout;
  row->addWidget(m_dismiss);
  row->addWidget(back, 1);
  layout->addLayout(row);
  layout->addStretch(1);

  connect(m_lesson, &QPushButton::clicked, this,
          [this, lessonName] { Q_EMIT lessonRequested(lessonName); });
  connect(m_defaultRun, &QPushButton::clicked, this, &GettingStartedPanel::defaultRunRequested);
  connect(m_openTrace, &QPushButton::clicked, this, &GettingStartedPanel::openTraceRequested);
  connect(m_presenter, &QPushButton::clicked, this, &GettingStartedPanel::presenterModeRequested);
  connect(m_dismiss, &QPushButton::clicked, this, &GettingStartedPanel::dismissed);
}

void GettingStartedPanel::setPresenterMode(bool on) {
  m_presenter->setChecked(on);
}

QSize GettingStartedPanel::sizeHint() const {
  return {kWidth, QWidget::sizeHint().height()};
}

QSize GettingStartedPanel::minimumSizeHint() const {
  return {kWidth / 2, QWidget::minimumSizeHint().height()};
}

}  // namespace throttlelab::ui
