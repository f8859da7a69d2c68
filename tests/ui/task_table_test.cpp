// SPDX-License-Identifier: GPL-3.0-or-later
// The task table: dataChanged (not reset) when the task set is unchanged, 10,000 rows,
// sorting, filtering, and a selection that survives updates.
#include <gtest/gtest.h>

#include <QApplication>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStyle>
#include <QTableView>

#include "task_table.h"
#include "task_table_model.h"

namespace throttlelab::ui {
namespace {

std::shared_ptr<const WorkerSnapshot> snapshotOf(int tasks, double pauseScale = 1) {
  auto s = std::make_shared<WorkerSnapshot>();
  for (int i = 0; i < tasks; ++i) {
    engine::TaskStats t;
    t.info = engine::TaskInfo{.index = i, .pid = 1000 + i, .name = i % 2 ? "dd" : "cp"};
    t.pauseMsMax = pauseScale * ((i * 37) % 200);
    t.writeKBps = 100.0 * i;
    s->tasks.push_back(std::move(t));
  }
  return s;
}

int selectedTaskOf(const TaskTable& table) {
  const auto rows = table.view()->selectionModel()->selectedRows();
  return rows.isEmpty() ? -1 : rows.front().data(TaskTableModel::kTaskIndexRole).toInt();
}

TEST(TaskTableModel, SameTaskSetUpdatesWithDataChangedNotReset) {
  TaskTableModel model;
  QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
  QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);
  model.setSnapshot(snapshotOf(100));
  EXPECT_EQ(resets.count(), 1);
  model.setSnapshot(snapshotOf(100, 2));
  EXPECT_EQ(resets.count(), 1);
  ASSERT_EQ(changes.count(), 1);
  EXPECT_EQ(changes.front().at(0).toModelIndex().row(), 0);
  EXPECT_EQ(changes.front().at(1).toModelIndex().row(), 99);
  EXPECT_EQ(model.index(5, TaskTableModel::PauseMax).data().toString(), QStringLiteral("370.0"));
  model.setSnapshot(snapshotOf(101));
  EXPECT_EQ(resets.count(), 2);
}

TEST(TaskTableModel, ShowsTheColumns) {
  TaskTableModel model;
  auto s = std::make_shared<WorkerSnapshot>();
  engine::TaskStats t;
  t.info = engine::TaskInfo{.index = 0,
                            .pid = 4242,
                            .name = "rt-dd",
                            .sched = engine::SchedClass::Fifo,
                            .rtPriority = 50};
  t.state = engine::TaskState::Paused;
  t.dirtiedPages = 2560;
  t.writeKBps = 1000000.0 / 1024;  // 1 MB/s
  t.pauseMsP50 = 12.5;
  t.taskRatelimitKBps = 2000000.0 / 1024;
  t.journalWaitS = 1.25;
  t.readMsMax = 340.5;
  s->tasks.push_back(t);
  model.setSnapshot(s);
  auto cell = [&](int c) { return model.index(0, c).data().toString(); };
  EXPECT_EQ(cell(TaskTableModel::Name), QStringLiteral("rt-dd"));
  EXPECT_EQ(cell(TaskTableModel::Pid), QStringLiteral("4242"));
  EXPECT_EQ(cell(TaskTableModel::Sched), QStringLiteral("FIFO 50"));
  EXPECT_FALSE(cell(TaskTableModel::State).isEmpty());
  EXPECT_EQ(cell(TaskTableModel::WriteMBps), QStringLiteral("1.00"));
  EXPECT_EQ(cell(TaskTableModel::DirtiedMiB), QStringLiteral("10.0"));
  EXPECT_EQ(cell(TaskTableModel::PauseP50), QStringLiteral("12.5"));
  EXPECT_EQ(cell(TaskTableModel::TaskRatelimit), QStringLiteral("2.00"));
  EXPECT_EQ(cell(TaskTableModel::JournalWait), QStringLiteral("1.25"));
  EXPECT_EQ(cell(TaskTableModel::ReadMax), QStringLiteral("340.5"));
}

TEST(TaskTable, EveryColumnTitleFitsItsHeaderAlsoInPresenterModesLargerFont) {
  TaskTableModel model;
  TaskTable table(&model);
  model.setSnapshot(snapshotOf(3));
  table.resize(1200, 300);
  table.show();
  const QFont normal = table.font();
  QFont large = normal;
  large.setPointSizeF(normal.pointSizeF() * 1.5);  // what presenter mode does to the window
  for (const QFont& font : {normal, large}) {
    table.setFont(font);
    QCoreApplication::processEvents();
    QHeaderView* header = table.view()->horizontalHeader();
    const QFontMetrics fm(header->font());
    const int margin = header->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header);
    for (int c = 0; c < model.columnCount(); ++c) {
      if (c == TaskTableModel::Name) continue;  // stretches over the spare width
      const QString title = model.headerData(c, Qt::Horizontal, Qt::DisplayRole).toString();
      EXPECT_GE(header->sectionSize(c), fm.horizontalAdvance(title) + 2 * margin)
          << title.toStdString() << " at " << font.pointSizeF() << " pt";
    }
  }
}

TEST(TaskTable, TenThousandRowsKeepTheirSelectionAcrossUpdates) {
  TaskTableModel model;
  TaskTable table(&model);
  table.resize(900, 400);
  table.show();
  model.setSnapshot(snapshotOf(10000));
  QSignalSpy selections(&table, &TaskTable::selectedTaskChanged);
  table.selectTask(9876);
  EXPECT_EQ(selectedTaskOf(table), 9876);
  ASSERT_EQ(selections.count(), 1);
  QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
  for (int i = 0; i < 5; ++i) model.setSnapshot(snapshotOf(10000, 1 + i));
  EXPECT_EQ(resets.count(), 0);
  EXPECT_EQ(selectedTaskOf(table), 9876);
  EXPECT_EQ(table.selectedTask(), 9876);
  EXPECT_EQ(selections.count(), 1);  // updates do not look like a new selection
}

TEST(TaskTable, SelectionIsRestoredWhenTheTaskSetChanges) {
  TaskTableModel model;
  TaskTable table(&model);
  model.setSnapshot(snapshotOf(50));
  table.selectTask(40);
  model.setSnapshot(snapshotOf(30));  // task 40 is gone
  EXPECT_EQ(selectedTaskOf(table), -1);
  model.setSnapshot(snapshotOf(60));  // and back
  EXPECT_EQ(selectedTaskOf(table), 40);
}

TEST(TaskTable, SortsNumericallyAndFiltersByName) {
  TaskTableModel model;
  TaskTable table(&model);
  model.setSnapshot(snapshotOf(300));
  table.view()->sortByColumn(TaskTableModel::PauseMax, Qt::DescendingOrder);
  const QModelIndex top = table.proxy()->index(0, TaskTableModel::PauseMax);
  EXPECT_EQ(top.data(TaskTableModel::kSortRole).toDouble(), 199.0);
  // Numeric, not lexical: 100.0 sorts above 99.0 in descending order.
  table.view()->sortByColumn(TaskTableModel::WriteMBps, Qt::DescendingOrder);
  EXPECT_EQ(table.proxy()->index(0, 0).data(TaskTableModel::kTaskIndexRole).toInt(), 299);
  table.proxy()->setFilterFixedString(QStringLiteral("cp"));
  EXPECT_EQ(table.proxy()->rowCount(), 150);
}

TEST(TaskTable, ClickingARowReportsTheTaskIndex) {
  TaskTableModel model;
  TaskTable table(&model);
  model.setSnapshot(snapshotOf(40));
  table.view()->sortByColumn(TaskTableModel::Pid, Qt::DescendingOrder);
  QSignalSpy selections(&table, &TaskTable::selectedTaskChanged);
  table.view()->selectRow(0);  // the highest pid: task 39
  ASSERT_EQ(selections.count(), 1);
  EXPECT_EQ(selections.front().at(0).toInt(), 39);
}

}  // namespace
}  // namespace throttlelab::ui
