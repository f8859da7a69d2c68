// SPDX-License-Identifier: GPL-3.0-or-later
#include "explain_panel.h"

#include <QApplication>
#include <QBoxLayout>
#include <QClipboard>
#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <cmath>
#include <limits>

#include "live_controller.h"
#include "throttlelab/engine/explain.h"

namespace throttlelab::ui {

ExplainPanel::ExplainPanel(const LiveController& controller, QWidget* parent)
    : QWidget(parent), m_controller(controller) {
  setObjectName(QStringLiteral("explainPanel"));
  m_layout = new QBoxLayout(QBoxLayout::TopToBottom, this);
  m_layout->setContentsMargins(4, 4, 4, 4);
  m_controls = new QBoxLayout(QBoxLayout::LeftToRight);
  auto* top = m_controls;
  m_heading = new QLabel(this);
  m_heading->setWordWrap(true);
  m_now = new QPushButton(tr("Now"), this);
  m_now->setObjectName(QStringLiteral("explainNow"));
  m_now->setToolTip(tr("Explain the task's latest throttle call and follow the run"));
  m_copy = new QPushButton(tr("Copy"), this);
  m_copy->setObjectName(QStringLiteral("explainCopy"));
  m_copy->setToolTip(tr("Copy the breakdown as text"));
  top->addWidget(m_heading, 1);
  top->addWidget(m_now);
  top->addWidget(m_copy);
  m_layout->addLayout(top);
  m_text = new QPlainTextEdit(this);
  m_text->setObjectName(QStringLiteral("explainText"));
  m_text->setReadOnly(true);
  // Its lines (a value, what it is, where docs/model.md explains it) run past any panel on a
  // projector: wrapped, nothing is cut at the right edge. Copy gives the lines unwrapped.
  m_text->setLineWrapMode(QPlainTextEdit::WidgetWidth);
  m_text->setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
  m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  m_layout->addWidget(m_text, 1);
  connect(m_copy, &QPushButton::clicked, this,
          [this] { QApplication::clipboard()->setText(m_text->toPlainText()); });
  connect(m_now, &QPushButton::clicked, this, [this] { setMoment(std::nullopt); });
  connect(&m_controller, &LiveController::explainsArrived, this, [this] {
    if (!m_moment && isVisible()) refresh();
  });
  refresh();
}

void ExplainPanel::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  // Short and wide (under the plots on a projector): the heading and the buttons in a column
  // beside the text, so that every line of the panel's height is the breakdown's. Narrow (a
  // dock at the side): above it.
  const bool beside = width() >= 700 && width() >= 3 * height();
  if (beside == (m_layout->direction() == QBoxLayout::RightToLeft)) return;
  m_layout->setDirection(beside ? QBoxLayout::RightToLeft : QBoxLayout::TopToBottom);
  m_controls->setDirection(beside ? QBoxLayout::TopToBottom : QBoxLayout::LeftToRight);
  m_controls->setStretchFactor(m_heading, beside ? 0 : 1);
  m_heading->setFixedWidth(beside ? kBesideWidth : QWIDGETSIZE_MAX);
  m_heading->setMinimumWidth(0);
  m_layout->setAlignment(m_controls, beside ? Qt::AlignTop : Qt::Alignment());
}

void ExplainPanel::setTask(int task) {
  m_task = task;
  refresh();
}

void ExplainPanel::setMoment(std::optional<double> timeS) {
  m_moment = timeS;
  refresh();
}

QString ExplainPanel::text() const {
  return m_text->toPlainText();
}

void ExplainPanel::refresh() {
  m_now->setEnabled(m_moment.has_value());
  if (m_task < 0) {
    m_heading->setText(
        tr("Click a task (its row in the table or its curve in the delay plot) "
           "to see why it waited."));
    m_text->clear();
    return;
  }
  const auto& infos = m_controller.taskInfos();
  const auto info = infos.find(m_task);
  const std::string name = info != infos.end() ? info->second.name : "task";
  const QString who =
      info != infos.end()
          ? QStringLiteral("%1 (pid %2)").arg(QString::fromStdString(name)).arg(info->second.pid)
          : tr("task %1").arg(m_task);
  const double at = m_moment.value_or(std::numeric_limits<double>::infinity());
  const auto e = m_controller.explainAt(m_task, at);
  if (!e) {
    const double oldest = m_controller.oldestExplainS();
    m_heading->setText(
        m_moment
            ? tr("%1: no throttle call kept at or before %2 s").arg(who).arg(*m_moment, 0, 'f', 3)
            : tr("%1: not throttled yet").arg(who));
    m_text->setPlainText(
        std::isnan(oldest)
            ? tr("No breakdown kept yet.")
            : tr("Breakdowns are kept from %1 s on, for the first 16 tasks and the selected one "
                 "(the last call of each per sample interval).")
                  .arg(oldest, 0, 'f', 1));
    return;
  }
  m_heading->setText(m_moment ? tr("%1 at %2 s").arg(who).arg(*m_moment, 0, 'f', 3)
                              : tr("%1, now").arg(who));
  m_text->setPlainText(QString::fromStdString(engine::formatExplain(
      *e, name, m_moment ? m_moment : std::optional<double>(m_controller.status().simTimeS))));
}

}  // namespace throttlelab::ui
