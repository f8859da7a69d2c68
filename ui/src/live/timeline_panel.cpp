// SPDX-License-Identifier: GPL-3.0-or-later
#include "timeline_panel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include "event_text.h"
#include "live_controller.h"

namespace throttlelab::ui {

namespace {
constexpr int kTime = 0, kKind = 1, kText = 2;
constexpr int kNoteRole = Qt::UserRole + 1;  ///< index into userEvents(), -1 for engine events
}  // namespace

TimelinePanel::TimelinePanel(LiveController& controller, std::function<double()> noteTime,
                             QWidget* parent)
    : QWidget(parent), m_controller(controller), m_noteTime(std::move(noteTime)) {
  setObjectName(QStringLiteral("timelinePanel"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  m_table = new QTableWidget(0, 3, this);
  m_table->setObjectName(QStringLiteral("timelineTable"));
  m_table->setHorizontalHeaderLabels({tr("time (s)"), tr("what"), tr("event")});
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_table->verticalHeader()->hide();
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->setToolTip(
      tr("What changed in the run, and your notes (double-click a note's time "
         "or text to edit it)"));
  layout->addWidget(m_table, 1);
  auto* buttons = new QHBoxLayout;
  m_add = new QPushButton(tr("Add note"), this);
  m_add->setObjectName(QStringLiteral("timelineAddNote"));
  m_add->setToolTip(tr("A note at marker A, or at the run's current time"));
  m_delete = new QPushButton(tr("Delete note"), this);
  m_delete->setObjectName(QStringLiteral("timelineDeleteNote"));
  buttons->addWidget(m_add);
  buttons->addWidget(m_delete);
  buttons->addStretch(1);
  layout->addLayout(buttons);
  connect(m_add, &QPushButton::clicked, this, &TimelinePanel::addNote);
  connect(m_delete, &QPushButton::clicked, this, &TimelinePanel::deleteSelected);
  connect(m_table, &QTableWidget::cellChanged, this, &TimelinePanel::onEdited);
  connect(m_table, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
    if (auto* item = m_table->item(row, kTime)) Q_EMIT timeActivated(item->text().toDouble());
  });
  connect(&m_controller, &LiveController::timelineChanged, this, &TimelinePanel::refresh);
  refresh();
}

void TimelinePanel::refresh() {
  m_filling = true;
  // Each entry knows which user entry it is: one pass (comparing every event with every note
  // took 51 s for 50,000 notes).
  const auto entries = m_controller.timelineEntries();
  m_table->setRowCount(static_cast<int>(entries.size()));
  for (int row = 0; row < static_cast<int>(entries.size()); ++row) {
    const auto& entry = entries[static_cast<std::size_t>(row)];
    const engine::RunEvent& e = *entry.event;
    const int note = entry.userIndex;
    const bool isNote = note >= 0 && e.kind == engine::RunEvent::Kind::Note;
    // A note longer than the list shows keeps its text: only its time can be edited here.
    const bool textEditable = isNote && shownWhole(e.text);
    const auto kind = engine::toString(e.kind);
    auto* time = new QTableWidgetItem(QString::number(e.timeS, 'f', 3));
    auto* what =
        new QTableWidgetItem(QString::fromUtf8(kind.data(), static_cast<int>(kind.size())));
    // In words; the form the CSVs and sessions keep is the tooltip. A note is as written.
    auto* text = new QTableWidgetItem(isNote ? shownEventText(e.text)
                                             : describeEvent(e, &m_controller.scenario()).full);
    if (isNote && !textEditable)
      text->setToolTip(
          tr("A note longer than the list shows: sessions and CSVs keep it whole. "
             "Delete it, or edit its time."));
    else if (!isNote)
      text->setToolTip(tr("In CSVs: # event: %1 %2")
                           .arg(QString::number(e.timeS, 'f', 3), shownEventText(e.text)));
    for (auto* item : {time, what, text}) {
      item->setData(kNoteRole, isNote ? note : -1);
      const bool editable = item == time ? isNote : item == text && textEditable;
      item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled |
                     (editable ? Qt::ItemIsEditable : Qt::NoItemFlags));
    }
    m_table->setItem(row, kTime, time);
    m_table->setItem(row, kKind, what);
    m_table->setItem(row, kText, text);
  }
  m_table->resizeColumnToContents(kTime);
  m_table->resizeColumnToContents(kKind);
  m_filling = false;
}

void TimelinePanel::addNote() {
  const std::size_t index = m_controller.addNote(m_noteTime(), tr("note").toStdString());
  for (int row = 0; row < m_table->rowCount(); ++row)
    if (auto* item = m_table->item(row, kText);
        item && item->data(kNoteRole).toInt() == static_cast<int>(index)) {
      m_table->setCurrentCell(row, kText);
      m_table->editItem(item);
      break;
    }
}

void TimelinePanel::deleteSelected() {
  const int row = m_table->currentRow();
  if (row < 0) return;
  const int note = m_table->item(row, kTime)->data(kNoteRole).toInt();
  if (note >= 0) m_controller.removeNote(static_cast<std::size_t>(note));
}

void TimelinePanel::onEdited(int row, int column) {
  if (m_filling || column == kKind) return;
  const int note = m_table->item(row, kTime)->data(kNoteRole).toInt();
  if (note < 0) return;
  const auto& kept = m_controller.userEvents()[static_cast<std::size_t>(note)];
  bool ok = false;
  double t = m_table->item(row, kTime)->text().toDouble(&ok);
  if (!ok || t < 0) t = kept.timeS;
  // The text as the list shows it, unless the list shows only its start.
  const std::string text = shownWhole(kept.text)
                               ? m_table->item(row, kText)->text().simplified().toStdString()
                               : kept.text;
  // Queued: editing rebuilds the table, which must not happen inside its own signal.
  QMetaObject::invokeMethod(
      this,
      [this, note, t, text] { m_controller.editNote(static_cast<std::size_t>(note), t, text); },
      Qt::QueuedConnection);
}

}  // namespace throttlelab::ui
