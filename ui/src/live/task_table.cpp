// SPDX-License-Identifier: GPL-3.0-or-later
#include "task_table.h"

#include <QEvent>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QStyle>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

#include "task_table_model.h"

namespace throttlelab::ui {

TaskTable::TaskTable(TaskTableModel* model, QWidget* parent)
    : QWidget(parent),
      m_model(model),
      m_proxy(new QSortFilterProxyModel(this)),
      m_view(new QTableView(this)),
      m_filter(new QLineEdit(this)) {
  setObjectName(QStringLiteral("taskTable"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->setSpacing(2);
  m_filter->setPlaceholderText(tr("Filter tasks by name…"));
  m_filter->setClearButtonEnabled(true);
  layout->addWidget(m_filter);
  layout->addWidget(m_view, 1);

  m_proxy->setSourceModel(m_model);
  m_proxy->setSortRole(TaskTableModel::kSortRole);
  m_proxy->setFilterKeyColumn(TaskTableModel::Name);
  m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
  m_proxy->setDynamicSortFilter(true);
  m_view->setModel(m_proxy);
  m_view->setSortingEnabled(true);
  m_view->sortByColumn(TaskTableModel::Pid, Qt::AscendingOrder);
  m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_view->setSelectionMode(QAbstractItemView::SingleSelection);
  m_view->setAlternatingRowColors(true);
  m_view->setWordWrap(false);
  m_view->verticalHeader()->hide();
  // Fixed row heights and no content-based sizing keep 10,000 rows cheap.
  m_view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 4);
  // The name column takes the spare width; numbers keep compact columns beside it.
  m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  m_view->horizontalHeader()->setSectionResizeMode(TaskTableModel::Name, QHeaderView::Stretch);
  m_view->horizontalHeader()->setStretchLastSection(false);
  fitColumns();

  connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
  connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this,
          &TaskTable::onSelectionChanged);
  connect(m_model, &QAbstractItemModel::modelReset, this, &TaskTable::reselect);
}

void TaskTable::fitColumns() {
  // Room for the values and for the whole title with its sort arrow, in the current font
  // (presenter mode enlarges it).
  const int em = m_view->fontMetrics().horizontalAdvance(QLatin1Char('M'));
  QHeaderView* header = m_view->horizontalHeader();
  const QFontMetrics fm(header->font());
  QStyle* style = header->style();
  const int margin = style->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header);
  const int arrow = style->pixelMetric(QStyle::PM_HeaderMarkSize, nullptr, header);
  const auto fit = [&](int column, int ems) {
    const QString title = m_model->headerData(column, Qt::Horizontal, Qt::DisplayRole).toString();
    m_view->setColumnWidth(column,
                           std::max(ems * em, fm.horizontalAdvance(title) + 3 * margin + arrow));
  };
  fit(TaskTableModel::Pid, 6);
  fit(TaskTableModel::Sched, 10);
  fit(TaskTableModel::Cgroup, 7);
  fit(TaskTableModel::State, 8);
  for (int c = TaskTableModel::WriteMBps; c < TaskTableModel::ColumnCount; ++c)
    fit(c, c == TaskTableModel::TaskRatelimit ? 12 : 9);
}

void TaskTable::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::FontChange) fitColumns();
}

void TaskTable::onSelectionChanged() {
  if (m_restoring) return;
  const QModelIndexList rows = m_view->selectionModel()->selectedRows();
  const int task = rows.isEmpty() ? -1 : rows.front().data(TaskTableModel::kTaskIndexRole).toInt();
  if (task == m_selected) return;
  m_selected = task;
  Q_EMIT selectedTaskChanged(task);
}

void TaskTable::selectTask(int taskIndex) {
  const bool changed = taskIndex != m_selected;
  m_selected = taskIndex;
  reselect();
  if (changed) Q_EMIT selectedTaskChanged(taskIndex);
}

void TaskTable::reselect() {
  m_restoring = true;
  const int row = m_model->rowOfTask(m_selected);
  if (row < 0) {
    m_view->selectionModel()->clearSelection();
  } else {
    const QModelIndex idx = m_proxy->mapFromSource(m_model->index(row, 0));
    m_view->selectionModel()->select(
        idx, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_view->scrollTo(idx);
  }
  m_restoring = false;
}

}  // namespace throttlelab::ui
