// SPDX-License-Identifier: GPL-3.0-or-later
// The run's timeline in the window (marks, list, notes, sessions, CSV export), what a policy
// without position control leaves out, and the explain panel against the trace record.
#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QJsonDocument>
#include <QPlainTextEdit>
#include <QTableWidget>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>

#include "dashboard.h"
#include "dirty_pages_plot.h"
#include "explain_panel.h"
#include "live_controller.h"
#include "qcp.h"
#include "session_file.h"
#include "task_table.h"
#include "task_table_model.h"
#include "throttlelab/engine/output.h"
#include "throttlelab/engine/simulator.h"
#include "time_plot.h"
#include "timeline_panel.h"
#include "window_parts.h"
#include "window_rig.h"

namespace throttlelab::ui {
namespace {

using test::WindowRig;

/// Runs the window's simulation, paused, to simulated time `t`, and lets a snapshot arrive.
bool runTo(LiveController& c, double t) {
  c.setRunning(false);
  test::settle(c);
  c.runFor(t);
  bool finished = false;
  QObject guard;
  QObject::connect(&c, &LiveController::runForFinished, &guard, [&] { finished = true; });
  if (!test::waitFor([&] {
        c.frame();
        return finished;
      }))
    return false;
  c.setSpeed(c.speed());  // a command: the worker answers it with a fresh snapshot
  return test::settle(c);
}

QStringList fileLines(const QString& path) {
  std::ifstream in(path.toStdString());
  QStringList out;
  for (std::string l; std::getline(in, l);) out << QString::fromStdString(l);
  return out;
}

TEST(TimelineSession, EventsAndNotesRoundTripThroughTheFile) {
  SessionState in;
  in.scenario = test::builtin("ten-dd");
  in.events = {{0.0, engine::RunEvent::Kind::Reset, "reset (seed 1)"},
               {15.0004, engine::RunEvent::Kind::TaskStart, "tasks[1] dd ×1 start"},
               {21.5, engine::RunEvent::Kind::Note, "the second writer, with \"quotes\""}};
  const QByteArray json = QJsonDocument(SessionFile::toJson(in)).toJson();
  const auto out = SessionFile::fromJson(json, QStringLiteral("memory"));
  ASSERT_TRUE(out.state) << out.error.toStdString();
  EXPECT_EQ(out.state->events, in.events);

  QByteArray bad = json;
  bad.replace("\"note\"", "\"gossip\"");
  const auto refused = SessionFile::fromJson(bad, QStringLiteral("memory"));
  EXPECT_FALSE(refused.state);
  EXPECT_TRUE(refused.error.contains("window.events[2].kind")) << refused.error.toStdString();
}

TEST(Timeline, EngineEventsAndNotesAreMarkedListedSavedAndExported) {
  WindowRig a;
  MainWindow& w = *a.window;
  LiveController& c = test::part<LiveController>(w, "liveController");
  c.load(test::builtin("default"));
  ASSERT_TRUE(runTo(c, 32));
  // The writers joining at 15 s and 30 s are events of the run.
  const auto events = c.timeline();
  auto at = [&](double t) {
    return std::any_of(events.begin(), events.end(), [&](const engine::RunEvent& e) {
      return e.kind == engine::RunEvent::Kind::TaskStart && e.timeS >= t && e.timeS < t + 0.01;
    });
  };
  EXPECT_TRUE(at(15));
  EXPECT_TRUE(at(30));

  c.addNote(12.5, "before the third writer");
  const std::size_t doomed = c.addNote(20, "to be deleted");
  ASSERT_TRUE(c.editNote(0, 12.25, "just before the third writer"));
  ASSERT_TRUE(c.removeNote(doomed));

  // Marks with labels on every time plot.
  for (PlotId id : {PlotId::DirtyPages, PlotId::Pauses, PlotId::Bandwidth, PlotId::Memory}) {
    const QStringList labels = test::part<Dashboard>(w, "dashboard").timePlot(id)->eventLabels();
    EXPECT_TRUE(labels.contains("just before the third writer")) << plotKey(id).toStdString();
    EXPECT_TRUE(std::any_of(labels.begin(), labels.end(), [](const QString& l) {
      return l.contains("tasks[2] rt-dd");
    })) << labels.join('|').toStdString();
    EXPECT_FALSE(labels.contains("to be deleted"));
  }
  // A row in the list.
  auto* panel = w.findChild<TimelinePanel*>(QStringLiteral("timelinePanel"));
  ASSERT_NE(panel, nullptr);
  bool listed = false;
  for (int r = 0; r < panel->table()->rowCount(); ++r)
    listed |= panel->table()->item(r, 2)->text() == "just before the third writer";
  EXPECT_TRUE(listed);

  // In the exported CSV, as header lines.
  const QString csv = a.path(QStringLiteral("run.csv"));
  ASSERT_EQ(w.exportTo(csv, ExportChoice{.format = ExportFormat::CsvAll}), QString());
  const QStringList lines = fileLines(csv);
  const QRegularExpression event(QStringLiteral(R"(^# event: (\d+\.\d{3}) (.*)$)"));
  QStringList texts;
  for (const QString& l : lines)
    if (const auto m = event.match(l); m.hasMatch()) texts << m.captured(1) + " " + m.captured(2);
  EXPECT_TRUE(texts.contains("12.250 just before the third writer"))
      << texts.join('\n').toStdString();
  EXPECT_TRUE(std::any_of(texts.begin(), texts.end(),
                          [](const QString& t) { return t.startsWith("15.00"); }));

  // And in the session, back in another window.
  const QString session = a.path(QStringLiteral("s.json"));
  ASSERT_TRUE(w.saveSession(session));
  WindowRig b;
  ASSERT_TRUE(b.window->openSession(session));
  const auto notes = test::part<LiveController>(*b.window, "liveController").userEvents();
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].text, "just before the third writer");
  EXPECT_DOUBLE_EQ(notes[0].timeS, 12.25);
}

// After a change to an IO-ful policy: no setpoint/freerun/task_ratelimit for that stretch, no
// task_ratelimit in the table, the exported CSV says which policy each row ran under.
TEST(Timeline, APolicyWithoutPositionControlShowsNone) {
  WindowRig a;
  MainWindow& w = *a.window;
  LiveController& c = test::part<LiveController>(w, "liveController");
  c.load(test::builtin("ten-dd"));
  ASSERT_TRUE(runTo(c, 5));
  engine::Scenario changed = c.scenario();
  changed.policy = "legacy-2.6.0";
  ASSERT_EQ(c.reconfigure(changed), QString());
  ASSERT_TRUE(runTo(c, 10));

  const auto timeline = c.timeline();
  EXPECT_TRUE(std::any_of(timeline.begin(), timeline.end(), [](const engine::RunEvent& e) {
    return e.kind == engine::RunEvent::Kind::Policy && e.text == "policy ioless → legacy-2.6.0";
  }));
  test::part<Dashboard>(w, "dashboard").refresh(true, true);
  QCustomPlot* dirty = test::part<Dashboard>(w, "dashboard").plotWidget(PlotId::DirtyPages);
  for (const char* name : {"setpoint", "freerun", "task_ratelimit"}) {
    QCPGraph* g = nullptr;
    for (int i = 0; i < dirty->graphCount(); ++i)
      if (dirty->graph(i)->name() == name) g = dirty->graph(i);
    ASSERT_NE(g, nullptr) << name;
    int before = 0, after = 0;
    for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it) {
      if (it->key < 4.5 && std::isfinite(it->value) && it->value > 0) ++before;
      if (it->key > 6 && std::isfinite(it->value)) ++after;
    }
    EXPECT_GT(before, 0) << name << ": drawn while ioless ran";
    EXPECT_EQ(after, 0) << name << ": drawn under legacy-2.6.0";
  }
  const auto& model = *w.findChild<TaskTable*>()->findChild<QAbstractItemModel*>();
  ASSERT_GT(model.rowCount(), 0);
  for (int col = 0; col < model.columnCount(); ++col)
    if (model.headerData(col, Qt::Horizontal).toString().contains("task_ratelimit"))
      EXPECT_EQ(model.index(0, col).data().toString(), QStringLiteral("—"));

  const QString csv = a.path(QStringLiteral("run.csv"));
  ASSERT_EQ(w.exportTo(csv, ExportChoice{.format = ExportFormat::CsvAll}), QString());
  QStringList rows;
  for (const QString& l : fileLines(csv))
    if (!l.startsWith('#')) rows << l;
  ASSERT_GT(rows.size(), 20);
  ASSERT_TRUE(rows[0].endsWith(",policy")) << rows[0].toStdString();
  // The header names both policies, not the one running when the file was written.
  EXPECT_TRUE(fileLines(csv).contains(QStringLiteral("# policy: ioless → legacy-2.6.0")));
  // Position control's fields are numbers while ioless ran, and empty under legacy-2.6.0 (they
  // were the engine's leftovers: a frozen dirty_ratelimit, a pos_ratio nothing used).
  const QStringList header = rows[0].split(',');
  const QStringList position{"pos_ratio", "task_ratelimit_kbps", "setpoint_pages", "freerun_pages",
                             "dirty_ratelimit_kbps"};
  int ioless = 0, legacy = 0;
  for (qsizetype i = 1; i < rows.size(); ++i) {
    const QStringList row = rows[i].split(',');
    ASSERT_EQ(row.size(), header.size()) << rows[i].toStdString();
    const double t = row.front().toDouble();
    const QString p = row.back();
    if (t < 4.9) EXPECT_EQ(p, "ioless") << rows[i].toStdString();
    if (t > 5.2) EXPECT_EQ(p, "legacy-2.6.0") << rows[i].toStdString();
    for (const QString& name : position)
      EXPECT_EQ(row[header.indexOf(name)].isEmpty(), p != "ioless")
          << name.toStdString() << " at " << t;
    ioless += p == "ioless";
    legacy += p == "legacy-2.6.0";
  }
  EXPECT_GT(ioless, 0);
  EXPECT_GT(legacy, 0);
}

/// `  NAME = VALUE` lines of a breakdown.
long long explained(const QString& text, const QString& name) {
  const QRegularExpression re(QStringLiteral(R"(^\s+%1 = (-?\d+))").arg(name),
                              QRegularExpression::MultilineOption);
  const auto m = re.match(text);
  return m.hasMatch() ? m.captured(1).toLongLong() : -999999;
}

// Clicking a task's row shows why it waited at marker A: the numbers of the
// balance_dirty_pages record of that moment, from an independent run of the same scenario.
TEST(ExplainPanel, ShowsTheTraceRecordOfTheMarkedMoment) {
  WindowRig a;
  MainWindow& w = *a.window;
  LiveController& c = test::part<LiveController>(w, "liveController");
  c.load(test::builtin("default"));
  ASSERT_TRUE(runTo(c, 20));
  auto* panel = w.findChild<ExplainPanel*>(QStringLiteral("explainPanel"));
  ASSERT_NE(panel, nullptr);
  test::part<TaskTable>(w, "taskTable").selectTask(1);
  const double t = 19.0;
  test::part<Dashboard>(w, "dashboard").setMarker(t, false);
  Q_EMIT test::part<Dashboard>(w, "dashboard").markerPlaced(t, false);
  EXPECT_EQ(panel->task(), 1);
  ASSERT_TRUE(panel->moment());
  const QString text = panel->text();
  ASSERT_TRUE(text.contains("balance_dirty_pages()")) << text.toStdString();

  // The same run, headless, with its trace: the last record of task 1 at or before t.
  struct Last : engine::RecordSink {
    int pid = 0;
    double t = 0;
    engine::BalanceDirtyPages last;
    void onTrace(const engine::TraceRecord& r) override {
      if (const auto* b = std::get_if<engine::BalanceDirtyPages>(&r);
          b && b->header.pid == pid && engine::toSeconds(b->header.time) <= t)
        last = *b;
    }
  } sink;
  engine::Simulator sim(test::builtin("default"));
  sink.t = t;
  sim.setSink(&sink, engine::OutputOptions{.traces = true});
  sim.runUntil(engine::atSeconds(0.001));
  sink.pid = sim.tasks().at(1).pid;
  sim.runUntil(engine::atSeconds(t));
  ASSERT_GT(sink.last.header.pid, 0);
  EXPECT_EQ(explained(text, "pause"), sink.last.pause) << text.toStdString();
  EXPECT_EQ(explained(text, "task_ratelimit"), sink.last.taskRatelimit);
  EXPECT_EQ(explained(text, "dirty_ratelimit"), sink.last.dirtyRatelimit);
  EXPECT_EQ(explained(text, "setpoint"), sink.last.setpoint);
  EXPECT_EQ(explained(text, "limit"), sink.last.limit);
  EXPECT_EQ(explained(text, "dirty"), sink.last.dirty);
}

// An event's label reads to the right of its line, except where that would run past the plot's
// right edge: there (the newest events of a live run) it reads to the left.
TEST(Timeline, EveryEventLabelStaysInsideItsPlot) {
  QWidget host;
  DirtyPagesPlot plot(&host);
  plot.widget()->resize(520, 300);
  host.resize(520, 300);
  host.show();
  QCoreApplication::processEvents();
  plot.setTimeRange(0, 40);
  using Kind = engine::RunEvent::Kind;
  plot.setEvents({{1.0, Kind::TaskStart, "tasks[0] dd x2 start"},
                  {20.0, Kind::TaskStart, "tasks[1] dd x1 start"},
                  {39.5, Kind::TaskStart, "tasks[2] rt-dd x1 start"}});
  plot.replot(true);
  QCustomPlot* qcp = plot.widget();
  const QRect rect = qcp->axisRect()->rect();
  int labels = 0;
  for (int i = 0; i < qcp->itemCount(); ++i) {
    auto* text = qobject_cast<QCPItemText*>(qcp->item(i));
    if (!text || !text->text().startsWith(QStringLiteral("tasks["))) continue;
    ++labels;
    EXPECT_GE(text->topLeft->pixelPosition().x(), rect.left() - 1) << text->text().toStdString();
    EXPECT_LE(text->topRight->pixelPosition().x(), rect.right() + 1) << text->text().toStdString();
  }
  EXPECT_EQ(labels, 3);
}

}  // namespace
}  // namespace throttlelab::ui
