// SPDX-License-Identifier: GPL-3.0-or-later
// The real-kernel view: importing a kernel trace off the GUI thread, its writers in
// the task table and its samples in the plots, cancel and bad files, and "Simulate this trace"
// with the measured-versus-simulated table.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QFile>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTextStream>
#include <fstream>
#include <set>

#include "qcp.h"
#include "run_controls.h"
#include "throttlelab/engine/output.h"
#include "throttlelab/engine/simulator.h"
#include "trace_comparison_model.h"
#include "trace_plot.h"
#include "trace_task_model.h"
#include "trace_view.h"
#include "window_parts.h"
#include "window_rig.h"

namespace throttlelab::ui {
namespace {

using test::part;
using test::partPtr;

const QString kDataDir = QStringLiteral(THROTTLELAB_TEST_DATA_DIR);
const QString kTenDd = kDataDir + QStringLiteral("/kernel-6.18/ftrace-10-dd.txt");
const QString kOneDd = kDataDir + QStringLiteral("/kernel-6.18/ftrace-1-dd.txt");

/// The pids of the file's balance_dirty_pages lines, read with a regular expression of our own
/// rather than the importer under test.
std::set<int> throttledPids(const QString& path) {
  QFile f(path);
  EXPECT_TRUE(f.open(QIODevice::ReadOnly | QIODevice::Text));
  static const QRegularExpression kLine(
      QStringLiteral(R"(^\s*\S.*-(\d+)\s+\[\d+\].*balance_dirty_pages:)"));
  std::set<int> pids;
  QTextStream in(&f);
  while (!in.atEnd()) {
    const auto m = kLine.match(in.readLine());
    if (m.hasMatch()) pids.insert(m.captured(1).toInt());
  }
  return pids;
}

bool importAndWait(MainWindow& w, const QString& path) {
  w.importTrace(path);
  return test::waitFor([&] { return !part<TraceView>(w, "traceView").isImporting(); });
}

TracePlot* plot(TraceView& view, PlotId id) {
  for (TracePlot* p : view.plots())
    if (p->id() == id) return p;
  return nullptr;
}

/// A simulated trace of two writers in two memory cgroups (container-writer on a 3 GiB
/// machine, where the writer outside the cgroup is throttled too): cgroup_ino 4096 and 1.
void writeTwoCgroupTrace(const QString& path) {
  engine::Scenario s = engine::loadScenario("container-writer");
  s.durationS = 6;
  s.machine.memoryMiB = 3072;
  struct Lines : engine::RecordSink {
    std::ofstream out;
    void onTrace(const engine::TraceRecord& r) override {
      out << engine::formatTraceLine(r) << '\n';
    }
  } lines;
  lines.out.open(path.toStdString());
  engine::writeTraceHeader(lines.out);
  engine::Simulator sim(s);
  engine::OutputOptions o;
  o.traces = true;
  sim.setSink(&lines, o);
  sim.run();
}

std::set<QString> writerNames(const TraceView& view) {
  std::set<QString> names;
  for (int r = 0; r < view.taskModel().rowCount(); ++r)
    names.insert(view.taskModel().index(r, TraceTaskModel::Comm).data().toString());
  return names;
}

TEST(TraceOverlay, TheCgroupChoiceDrawsOnlyThatCgroupsRecords) {
  test::WindowRig rig;
  MainWindow& w = *rig.window;
  const QString file = rig.path(QStringLiteral("two.txt"));
  writeTwoCgroupTrace(file);
  ASSERT_TRUE(importAndWait(w, file));
  TraceView& view = part<TraceView>(w, "traceView");
  ASSERT_NE(view.trace(), nullptr);
  EXPECT_EQ(writerNames(view),
            (std::set<QString>{QStringLiteral("dd-box"), QStringLiteral("dd-host")}));
  auto* choice = partPtr<QComboBox>(view, "traceCgroup");
  ASSERT_TRUE(choice->isEnabled());
  const int box = choice->findData(QVariant::fromValue<qulonglong>(4096));
  ASSERT_GT(box, 0);
  ASSERT_EQ(choice->count(), 3);  // all, 1 and 4096
  const qint64 allPoints = plot(view, PlotId::Pauses)->eventPointCount();

  choice->setCurrentIndex(box);
  Q_EMIT choice->activated(box);  // as a user's choice
  ASSERT_TRUE(test::waitFor([&] { return !view.isImporting(); }));
  EXPECT_EQ(view.cgroupFilter(), std::optional<std::uint64_t>(4096));
  EXPECT_EQ(writerNames(view), std::set<QString>{QStringLiteral("dd-box")});
  // Fewer pause dots: the host writer's are gone; simulating needs every cgroup.
  EXPECT_LT(plot(view, PlotId::Pauses)->eventPointCount(), allPoints);
  EXPECT_GT(plot(view, PlotId::Pauses)->eventPointCount(), 0);
  EXPECT_FALSE(view.simulateButton()->isEnabled());
  EXPECT_TRUE(view.summaryText().contains(QStringLiteral("Only cgroup_ino 4096")));
  EXPECT_EQ(choice->currentIndex(), box);

  Q_EMIT choice->activated(0);  // all cgroups again
  ASSERT_TRUE(test::waitFor([&] { return !view.isImporting(); }));
  EXPECT_FALSE(view.cgroupFilter().has_value());
  EXPECT_EQ(writerNames(view).size(), 2u);
  EXPECT_TRUE(view.simulateButton()->isEnabled());
  EXPECT_TRUE(rig.notifier.messages.isEmpty()) << rig.notifier.messages.join('\n').toStdString();

  // --open-trace FILE --trace-cgroup 1 opens with the root cgroup's records only.
  GuiLaunchOptions options;
  options.importTrace = file.toStdString();
  options.traceCgroup = 1;
  test::WindowRig opened(options);
  TraceView& root = part<TraceView>(*opened.window, "traceView");
  ASSERT_TRUE(test::waitFor([&] { return root.trace() != nullptr && !root.isImporting(); }));
  EXPECT_EQ(root.cgroupFilter(), std::optional<std::uint64_t>(1));
  EXPECT_EQ(writerNames(root), std::set<QString>{QStringLiteral("dd-host")});
}

TEST(TraceOverlay, ImportShowsThePidsInTheTaskTableAndMeasuredPointsInThePlots) {
  test::WindowRig rig;
  MainWindow& w = *rig.window;
  ASSERT_TRUE(importAndWait(w, kTenDd));
  EXPECT_TRUE(rig.notifier.messages.isEmpty()) << rig.notifier.messages.join('\n').toStdString();
  EXPECT_EQ(w.centralView(), CentralView::RealKernel);
  auto* stack = qobject_cast<QStackedWidget*>(w.centralWidget());
  ASSERT_NE(stack, nullptr);
  EXPECT_EQ(stack->currentWidget(), &part<TraceView>(w, "traceView"));
  EXPECT_TRUE(partPtr<QAction>(w, "realKernelAction")->isChecked());
  EXPECT_FALSE(
      part<LiveController>(w, "liveController").isRunning());  // the live run waits meanwhile
  // ... and the run controls, which drive a simulation, have nothing to drive here.
  EXPECT_FALSE(part<RunControls>(w, "runControls").runAction()->isEnabled());
  EXPECT_FALSE(part<RunControls>(w, "runControls").stepAction()->isEnabled());

  TraceView& view = part<TraceView>(w, "traceView");
  ASSERT_NE(view.trace(), nullptr);
  const std::set<int> expected = throttledPids(kTenDd);
  ASSERT_EQ(expected.size(), 10u);
  const TraceTaskModel& tasks = view.taskModel();
  std::set<int> shown;
  for (int r = 0; r < tasks.rowCount(); ++r)
    shown.insert(tasks.index(r, TraceTaskModel::Pid).data().toInt());
  EXPECT_EQ(shown, expected);
  for (int r = 0; r < tasks.rowCount(); ++r) {
    EXPECT_EQ(tasks.index(r, TraceTaskModel::Comm).data().toString(), QStringLiteral("dd"));
    EXPECT_GT(tasks.index(r, TraceTaskModel::Dirtied).data(Qt::EditRole).toLongLong(), 0);
  }
  // The table agrees with TraceStats on every writer's pages and pauses.
  const auto& measured = view.trace()->measured;
  ASSERT_EQ(measured.tasks.size(), view.trace()->tasks.size());
  for (std::size_t i = 0; i < measured.tasks.size(); ++i) {
    EXPECT_EQ(measured.tasks[i].pid, view.trace()->tasks[i].pid);
    EXPECT_EQ(measured.tasks[i].dirtiedPages, view.trace()->tasks[i].dirtiedPages);
    EXPECT_EQ(measured.tasks[i].pauses, view.trace()->tasks[i].pauses);
  }

  // Measured points in every plot, nothing simulated yet.
  for (TracePlot* p : view.plots()) {
    EXPECT_GT(p->pointCount(TracePlot::kMeasured), 0) << plotKey(p->id()).toStdString();
    EXPECT_EQ(p->pointCount(TracePlot::kSimulated), 0) << plotKey(p->id()).toStdString();
    EXPECT_GT(p->eventPointCount(), 0) << plotKey(p->id()).toStdString();
  }
  // Every global_dirty_state record is a dot of its own in the dirty-pages plot (the README of
  // the fixtures counts 1,405 of them in this file).
  EXPECT_EQ(plot(view, PlotId::DirtyPages)->eventPointCount(), 1405);
  // The summary says what was read, skipped lines included.
  EXPECT_FALSE(view.summaryText().isEmpty());
  EXPECT_GT(view.trace()->stats.skipped(), 0);                                 // the ftrace header
  const QString plain = QString(view.summaryText()).remove(QLatin1Char(','));  // 1,985 → 1985
  EXPECT_TRUE(plain.contains(QString::number(view.trace()->stats.events)))
      << view.summaryText().toStdString();
  EXPECT_TRUE(plain.contains(QString::number(view.trace()->stats.skipped())))
      << view.summaryText().toStdString();

  // One hover cursor over all plots, reading the measured trace.
  view.setCursorTime(0.3);
  for (TracePlot* p : view.plots()) {
    ASSERT_TRUE(p->cursorTime().has_value());
    EXPECT_DOUBLE_EQ(*p->cursorTime(), 0.3);
  }
  EXPECT_TRUE(plot(view, PlotId::DirtyPages)
                  ->readoutText()
                  .contains(QStringLiteral("measured dirty+writeback")));
}

TEST(TraceOverlay, ANonTraceFileGivesAMessageAndChangesNothing) {
  test::WindowRig rig;
  MainWindow& w = *rig.window;
  const QString junk = rig.path(QStringLiteral("notes.txt"));
  {
    QFile f(junk);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("shopping list\nmilk\neggs\n\x01\x02\x03 binary junk\n");
  }
  QSignalSpy failed(&part<TraceView>(w, "traceView"), &TraceView::importFailed);
  ASSERT_TRUE(importAndWait(w, junk));
  EXPECT_EQ(failed.count(), 1);
  ASSERT_EQ(rig.notifier.messages.size(), 1);
  EXPECT_TRUE(rig.notifier.messages[0].contains(QStringLiteral("Cannot import the trace")));
  EXPECT_TRUE(rig.notifier.messages[0].contains(QStringLiteral("notes.txt")))
      << rig.notifier.messages[0].toStdString();
  EXPECT_EQ(part<TraceView>(w, "traceView").trace(), nullptr);
  EXPECT_EQ(part<TraceView>(w, "traceView").taskModel().rowCount(), 0);
  EXPECT_FALSE(part<TraceView>(w, "traceView").simulateButton()->isEnabled());

  // A file that does not exist: the same, with its own message.
  ASSERT_TRUE(importAndWait(w, rig.path(QStringLiteral("missing.txt"))));
  ASSERT_EQ(rig.notifier.messages.size(), 2);
  EXPECT_TRUE(rig.notifier.messages[1].contains(QStringLiteral("missing.txt")));
  EXPECT_EQ(part<TraceView>(w, "traceView").trace(), nullptr);
}

TEST(TraceOverlay, CancelStopsAnImportAndKeepsThePreviousTrace) {
  test::WindowRig rig;
  MainWindow& w = *rig.window;
  ASSERT_TRUE(importAndWait(w, kOneDd));
  ASSERT_NE(part<TraceView>(w, "traceView").trace(), nullptr);
  const auto before = part<TraceView>(w, "traceView").trace();
  const int rowsBefore = part<TraceView>(w, "traceView").taskModel().rowCount();

  // A large trace: the 10-dd file's events repeated, about 40 MB.
  const QString big = rig.path(QStringLiteral("big.txt"));
  {
    QFile in(kTenDd);
    ASSERT_TRUE(in.open(QIODevice::ReadOnly));
    const QByteArray body = in.readAll();
    QFile out(big);
    ASSERT_TRUE(out.open(QIODevice::WriteOnly));
    for (int i = 0; i < 100; ++i) ASSERT_EQ(out.write(body), body.size());
  }
  QSignalSpy cancelled(&part<TraceView>(w, "traceView"), &TraceView::importCancelled);
  QSignalSpy finished(&part<TraceView>(w, "traceView"), &TraceView::importFinished);
  w.importTrace(big);
  ASSERT_TRUE(part<TraceView>(w, "traceView").isImporting());
  EXPECT_TRUE(
      part<TraceView>(w, "traceView").progressBar()->isVisibleTo(&part<TraceView>(w, "traceView")));
  part<TraceView>(w, "traceView").cancelImport();
  ASSERT_TRUE(test::waitFor([&] { return !part<TraceView>(w, "traceView").isImporting(); }));
  EXPECT_EQ(cancelled.count(), 1);
  EXPECT_EQ(finished.count(), 0);
  EXPECT_FALSE(
      part<TraceView>(w, "traceView").progressBar()->isVisibleTo(&part<TraceView>(w, "traceView")));
  // Nothing of the cancelled file reached the view.
  EXPECT_EQ(part<TraceView>(w, "traceView").trace(), before);
  EXPECT_EQ(part<TraceView>(w, "traceView").taskModel().rowCount(), rowsBefore);
  EXPECT_TRUE(rig.notifier.messages.isEmpty());
}

/// TraceStats over a file, fed by the importer's raw records: the measured side as a caller
/// of the library would compute it.
traceio::TraceStats::Result statsOf(const QString& path) {
  struct Sink final : traceio::ImportSink {
    traceio::TraceStats stats;
    void onRecord(const engine::TraceRecord& r) override { stats.add(r); }
  } sink;
  const auto result = traceio::importTrace(path.toStdString(), sink);
  EXPECT_TRUE(result.ok()) << result.error;
  return sink.stats.result();
}

TEST(TraceOverlay, ARecordingWithoutThrottledWritersSaysThereIsNothingToSimulate) {
  // The excerpt without its balance_dirty_pages lines: global state and bdi estimates only.
  test::WindowRig rig;
  QFile in(kDataDir + QStringLiteral("/real-trace-excerpt.txt"));
  ASSERT_TRUE(in.open(QIODevice::ReadOnly | QIODevice::Text));
  QFile out(rig.path(QStringLiteral("no-writers.txt")));
  ASSERT_TRUE(out.open(QIODevice::WriteOnly | QIODevice::Text));
  for (const QByteArray& line : in.readAll().split('\n'))
    if (!line.contains("balance_dirty_pages:")) out.write(line + '\n');
  out.close();
  MainWindow& w = *rig.window;
  ASSERT_TRUE(importAndWait(w, out.fileName()));
  TraceView& view = part<TraceView>(w, "traceView");
  ASSERT_NE(view.trace(), nullptr);
  ASSERT_TRUE(view.trace()->tasks.empty());
  EXPECT_FALSE(view.simulate());
  EXPECT_FALSE(view.isSimulating());
  EXPECT_EQ(view.comparison().rowCount(), 0);
  EXPECT_TRUE(view.notesText().contains(QStringLiteral("Nothing to simulate")))
      << view.notesText().toStdString();
}

TEST(TraceOverlay, SimulateThisTraceOverlaysARunAndComparesLikeForLike) {
  test::WindowRig rig;
  MainWindow& w = *rig.window;
  ASSERT_TRUE(importAndWait(w, kTenDd));
  TraceView& view = part<TraceView>(w, "traceView");
  view.setProcRoot(kDataDir + QStringLiteral("/proc-6.18/a"));
  view.setTakenHere(true);
  QSignalSpy done(&view, &TraceView::simulationFinished);
  ASSERT_TRUE(view.simulate());
  ASSERT_TRUE(test::waitFor([&] { return !view.isSimulating(); }, std::chrono::seconds(300)));
  ASSERT_EQ(done.count(), 1) << rig.notifier.messages.join('\n').toStdString();
  ASSERT_NE(view.simulation(), nullptr);

  // The scenario came from the trace and the host facts of the fixture machine.
  const engine::Scenario& s = view.simulation()->scenario;
  EXPECT_EQ(s.machine.cpus, 2);
  EXPECT_EQ(s.machine.memoryMiB, 24683656 / 1024);
  int writers = 0;
  for (const auto& t : s.tasks) writers += t.count;
  EXPECT_EQ(writers, 10);
  EXPECT_FALSE(view.notesText().isEmpty());

  // The comparison's measured column is TraceStats over the same file.
  const auto measured = statsOf(kTenDd);
  const auto expected = traceio::compare(measured, view.simulation()->simulated);
  const TraceComparisonModel& table = view.comparison();
  ASSERT_GT(table.rowCount(), 0);
  ASSERT_EQ(static_cast<std::size_t>(table.rowCount()), expected.size());
  for (int r = 0; r < table.rowCount(); ++r) {
    const auto& e = expected[static_cast<std::size_t>(r)];
    EXPECT_EQ(table.index(r, TraceComparisonModel::Metric).data().toString().toStdString(),
              e.metric);
    EXPECT_DOUBLE_EQ(table.index(r, TraceComparisonModel::Measured).data(Qt::EditRole).toDouble(),
                     e.measured)
        << e.metric;
    EXPECT_DOUBLE_EQ(table.index(r, TraceComparisonModel::Simulated).data(Qt::EditRole).toDouble(),
                     e.simulated)
        << e.metric;
    EXPECT_DOUBLE_EQ(table.index(r, TraceComparisonModel::OffPct).data(Qt::EditRole).toDouble(),
                     e.offPct.value_or(0))
        << e.metric;
  }
  // The dirty-pages median of the measured side is the file's.
  bool sawDirty = false;
  for (const auto& row : table.rows())
    if (row.metric == "dirty pages p50") {
      EXPECT_DOUBLE_EQ(row.measured, measured.dirtyPages.p50);
      sawDirty = true;
    }
  EXPECT_TRUE(sawDirty);

  // Both overlaid, starting together at t = 0.
  for (TracePlot* p : view.plots()) {
    EXPECT_GT(p->pointCount(TracePlot::kSimulated), 0) << plotKey(p->id()).toStdString();
    EXPECT_GT(p->pointCount(TracePlot::kMeasured), 0) << plotKey(p->id()).toStdString();
  }
  ASSERT_FALSE(view.simulation()->samples.empty());
  EXPECT_NEAR(engine::toSeconds(view.simulation()->samples.front().time), 0, 0.11);
  EXPECT_NEAR(engine::toSeconds(view.trace()->samples.front().time), 0, 0.11);

  // "Open in dashboard" runs the derived scenario live.
  const auto derived = view.derivedScenario();
  ASSERT_TRUE(derived.has_value());
  w.runScenario(*derived);
  EXPECT_EQ(w.centralView(), CentralView::Dashboard);
  EXPECT_TRUE(part<RunControls>(w, "runControls").runAction()->isEnabled());
  EXPECT_TRUE(part<RunControls>(w, "runControls").stepAction()->isEnabled());
  EXPECT_EQ(part<LiveController>(w, "liveController").scenario(), *derived);
  EXPECT_TRUE(rig.notifier.messages.isEmpty()) << rig.notifier.messages.join('\n').toStdString();
}

}  // namespace
}  // namespace throttlelab::ui
