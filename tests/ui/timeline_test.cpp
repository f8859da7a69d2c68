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
#include "event_text.h"
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

/// A window whose live run has loaded the built-in `scenario` and run, paused, to `t` s.
struct RunWindow {
  RunWindow(const char* scenario, double t) {
    c.load(test::builtin(scenario));
    ran = runTo(c, t);
  }
  WindowRig rig;
  MainWindow& w = *rig.window;
  LiveController& c = test::part<LiveController>(w, "liveController");
  bool ran = false;
};

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
  const RunWindow a("default", 32);
  ASSERT_TRUE(a.ran);
  MainWindow& w = a.w;
  LiveController& c = a.c;
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

  // Marks on every time plot, in words (their labels above the top plot of each column).
  for (PlotId id : {PlotId::DirtyPages, PlotId::Pauses, PlotId::Bandwidth, PlotId::Memory}) {
    QStringList marks;
    for (const EventMark& m : test::part<Dashboard>(w, "dashboard").timePlot(id)->eventMarks())
      marks << m.full;
    EXPECT_TRUE(marks.contains("just before the third writer")) << plotKey(id).toStdString();
    EXPECT_TRUE(marks.contains("rt-dd ×1 start")) << marks.join('|').toStdString();
    EXPECT_FALSE(marks.contains("to be deleted"));
  }
  // A row in the list.
  auto* panel = w.findChild<TimelinePanel*>(QStringLiteral("timelinePanel"));
  ASSERT_NE(panel, nullptr);
  bool listed = false;
  for (int r = 0; r < panel->table()->rowCount(); ++r)
    listed |= panel->table()->item(r, 2)->text() == "just before the third writer";
  EXPECT_TRUE(listed);

  // In the exported CSV, as header lines.
  const QString csv = a.rig.path(QStringLiteral("run.csv"));
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
  const QString session = a.rig.path(QStringLiteral("s.json"));
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
  const RunWindow a("ten-dd", 5);
  ASSERT_TRUE(a.ran);
  MainWindow& w = a.w;
  LiveController& c = a.c;
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
  for (int col = 0; col < model.columnCount(); ++col) {
    if (model.headerData(col, Qt::Horizontal).toString().contains("task_ratelimit")) {
      EXPECT_EQ(model.index(0, col).data().toString(), QStringLiteral("—"));
    }
  }

  const QString csv = a.rig.path(QStringLiteral("run.csv"));
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
    if (t < 4.9) {
      EXPECT_EQ(p, "ioless") << rows[i].toStdString();
    }
    if (t > 5.2) {
      EXPECT_EQ(p, "legacy-2.6.0") << rows[i].toStdString();
    }
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
  const RunWindow a("default", 20);
  ASSERT_TRUE(a.ran);
  MainWindow& w = a.w;
  LiveController& c = a.c;
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

/// A dirty-pages plot of 520 × 300 pixels on screen, showing 0 to 40 s: where the tests
/// below put the timeline's marks and labels.
struct ShownPlot {
  ShownPlot() : plot(&host) {
    plot.widget()->resize(520, 300);
    host.resize(520, 300);
    host.show();
    QCoreApplication::processEvents();
    plot.setTimeRange(0, 40);
  }
  QWidget host;
  DirtyPagesPlot plot;
};

// Labels sit in a strip above the data area (never over the data), beside their marks, inside
// the plot, never over each other: crowded ones stack in a second row, then are shortened or
// left out; an event outside the visible range has no label. (A label box hid the pauses from
// 40.5 to 49.5 s; a 130 s label was drawn near 45 s; labels ran into each other.)
TEST(Timeline, EventLabelsNeverCoverTheDataOrEachOther) {
  ShownPlot shown;
  DirtyPagesPlot& plot = shown.plot;
  using Kind = engine::RunEvent::Kind;
  plot.setEvents({{1.0, Kind::TaskStart, "tasks[0] dd x2 start"},
                  {1.5, Kind::Note, "a note with rather a lot of words in it"},
                  {2.0, Kind::Note, "another note, as long as the first one was"},
                  {2.5, Kind::Note, "and a third one, which has no room at all"},
                  {20.0, Kind::TaskStart, "tasks[1] dd x1 start"},
                  {39.5, Kind::TaskStart, "tasks[2] rt-dd x1 start"},
                  {130.0, Kind::Reconfigure, "tasks[0].count 100 → 1000"}});
  plot.replot(true);
  QCustomPlot* qcp = plot.widget();
  const QRect rect = qcp->axisRect()->rect();
  const auto& layout = plot.eventLabelLayout();
  ASSERT_GE(layout.size(), 4u);
  for (std::size_t i = 0; i < layout.size(); ++i) {
    const EventLabelBox& l = layout[i];
    EXPECT_LT(l.mark, 6) << "the 130 s event is outside the range shown";
    EXPECT_GE(l.box.left(), rect.left() - 1) << l.text.toStdString();
    EXPECT_LE(l.box.right(), rect.right() + 1) << l.text.toStdString();
    EXPECT_LE(l.box.bottom(), rect.top()) << l.text.toStdString() << ": over the data";
    EXPECT_GE(l.box.top(), 0) << l.text.toStdString();
    for (std::size_t j = i + 1; j < layout.size(); ++j)
      EXPECT_FALSE(l.box.intersects(layout[j].box))
          << l.text.toStdString() << " | " << layout[j].text.toStdString();
  }
  // The two far apart in full, in words; the crowd shortened or left out.
  const QStringList labels = plot.eventLabels();
  EXPECT_TRUE(labels.contains(QStringLiteral("dd x1 start"))) << labels.join('|').toStdString();
  EXPECT_TRUE(labels.contains(QStringLiteral("rt-dd x1 start"))) << labels.join('|').toStdString();
  EXPECT_EQ(plot.eventMarks().size(), 7u);
}

// The marks and labels are not on the buffered hover layer (anything on it makes every frame
// clear and blend a whole extra image); the hover readout is above them.
TEST(Timeline, EventMarksAreNotOnTheHoverOverlay) {
  ShownPlot shown;
  DirtyPagesPlot& plot = shown.plot;
  plot.setEvents({{10.0, engine::RunEvent::Kind::TaskStart, "tasks[0] dd x2 start"}});
  plot.replot(true);
  QCustomPlot* qcp = plot.widget();
  QCPLayer* overlay = qcp->layer(QStringLiteral("overlay"));
  ASSERT_NE(overlay, nullptr);
  for (QCPLayerable* child : overlay->children()) {
    if (!qobject_cast<QCPSelectionRect*>(child)) {  // draws only while a rectangle is dragged
      EXPECT_FALSE(child->visible())
          << "visible on the overlay with no cursor: " << child->metaObject()->className();
    }
  }
  // Hovering at the mark names it in the readout, which is drawn above the marks.
  plot.setCursor(10.0, std::vector<const engine::Sample*>{});
  QCPLayer* events = qcp->layer(QStringLiteral("events"));
  ASSERT_NE(events, nullptr);
  EXPECT_EQ(events->mode(), QCPLayer::lmLogical);
  EXPECT_LT(events->index(), overlay->index());
  EXPECT_EQ(plot.eventsNear(10.0), QStringList{QStringLiteral("10.0 s: dd x2 start")});
}

// Events read as words: the task group's name and the setting's, not JSON paths.
TEST(Timeline, EventsReadAsWords) {
  const engine::Scenario s = test::builtin("default");
  using Kind = engine::RunEvent::Kind;
  const auto words = [&](Kind k, const char* text) { return describeEvent({1, k, text}, &s); };
  EXPECT_EQ(words(Kind::Reconfigure, "tasks[2].rtPriority 50 → 49").label,
            QStringLiteral("rt-dd: rt priority 50 → 49"));
  EXPECT_EQ(words(Kind::TaskStart, "tasks[0] dd ×2 start").label, QStringLiteral("dd ×2 start"));
  EXPECT_EQ(words(Kind::Reconfigure, "tasks[0].count 1 → 10").label, QStringLiteral("dd ×1 → ×10"));
  const EventText two =
      words(Kind::Reconfigure, "vm.dirty_ratio 20 → 10; machine.memoryMiB 2048 → 1024");
  EXPECT_EQ(two.label, QStringLiteral("vm.dirty_ratio 20 → 10 (+1 more)"));
  EXPECT_EQ(two.full, QStringLiteral("vm.dirty_ratio 20 → 10; memory (MiB) 2048 → 1024"));
  EXPECT_EQ(words(Kind::Policy, "policy ioless → perbdi-2.6.24").label,
            QStringLiteral("policy ioless → perbdi-2.6.24"));
}

// A session's note of any length (a 20 MB one took 46 s and 984 MiB to open): the list, the
// plots' labels and tooltips show its first 1,000 characters and how long it is; the note
// itself stays whole (sessions and CSVs keep it), its time can be edited and it can be
// deleted, and its text is not replaced by the part the list shows.
TEST(Timeline, AHugeNoteIsShownInPartAndKeptWhole) {
  LiveController::Options options;
  options.startRunning = false;
  LiveController c(options);
  TimelinePanel panel(c, [] { return 0.0; });
  const std::string huge = "start " + std::string(200'000, 'x') + "é end";
  c.setNotes(
      {{2.0, engine::RunEvent::Kind::Note, "short"}, {3.0, engine::RunEvent::Kind::Note, huge}});
  QTableWidget& table = *panel.table();
  int hugeRow = -1, shortRow = -1;
  for (int r = 0; r < table.rowCount(); ++r) {
    if (table.item(r, 2)->text().startsWith("start x")) hugeRow = r;
    if (table.item(r, 2)->text() == "short") shortRow = r;
  }
  ASSERT_GE(hugeRow, 0);
  ASSERT_GE(shortRow, 0);
  const QString shown = table.item(hugeRow, 2)->text();
  EXPECT_LE(shown.size(), 1100);
  EXPECT_TRUE(shown.endsWith("… (200,011 characters in all)")) << shown.right(60).toStdString();
  EXPECT_FALSE(table.item(hugeRow, 2)->flags() & Qt::ItemIsEditable);
  EXPECT_TRUE(table.item(hugeRow, 0)->flags() & Qt::ItemIsEditable);
  EXPECT_TRUE(table.item(shortRow, 2)->flags() & Qt::ItemIsEditable);
  // The plots' marks, their hover text and tooltips: the same part.
  const EventText words = describeEvent(c.userEvents()[1], &c.scenario());
  EXPECT_LE(words.label.size(), 1100);
  EXPECT_LE(words.full.size(), 1100);

  // A new time: the note moves, whole.
  table.item(hugeRow, 0)->setText(QStringLiteral("4.500"));
  QCoreApplication::processEvents();
  ASSERT_EQ(c.userEvents().size(), 2u);
  EXPECT_DOUBLE_EQ(c.userEvents()[1].timeS, 4.5);
  EXPECT_EQ(c.userEvents()[1].text, huge);
  // Kept whole in the session.
  SessionState state;
  state.scenario = c.scenario();
  state.events = c.timeline();
  const auto back = SessionFile::fromJson(QJsonDocument(SessionFile::toJson(state)).toJson(),
                                          QStringLiteral("memory"));
  ASSERT_TRUE(back.state) << back.error.toStdString();
  EXPECT_TRUE(std::any_of(back.state->events.begin(), back.state->events.end(),
                          [&](const engine::RunEvent& e) { return e.text == huge; }));
}

// Text of up to 1,000 characters (of any script) is shown whole; one more is cut, at a
// character, never inside one.
TEST(Timeline, TheShownPartEndsAtACharacter) {
  std::string thousand;
  for (int i = 0; i < 1000; ++i) thousand += i % 2 ? "é" : "😀";  // 2 and 4 bytes in UTF-8
  EXPECT_TRUE(shownWhole(thousand));
  EXPECT_EQ(shownEventText(thousand), QString::fromStdString(thousand));
  const QString cut = shownEventText(thousand + "x");
  EXPECT_TRUE(cut.startsWith(QString::fromStdString(thousand) + "…")) << cut.toStdString();
  EXPECT_TRUE(cut.endsWith("(1,001 characters in all)"));
  const QString odd = shownEventText("a" + thousand);
  EXPECT_FALSE(odd.contains(QChar::ReplacementCharacter));
  EXPECT_TRUE(
      odd.startsWith(QString::fromStdString("a" + thousand.substr(0, thousand.size() - 2)) + "…"));
}

// Each row of the list is its own note, when two are alike too (same time, same text): the
// list says which, without comparing every event with every note.
TEST(Timeline, EveryRowOfTheListIsItsOwnNote) {
  LiveController::Options options;
  options.startRunning = false;
  LiveController c(options);
  TimelinePanel panel(c, [] { return 0.0; });
  std::vector<engine::RunEvent> notes;
  for (int i = 0; i < 2000; ++i)
    notes.push_back(
        {static_cast<double>(i % 10), engine::RunEvent::Kind::Note, "n" + std::to_string(i % 7)});
  c.setNotes(notes);
  QTableWidget& table = *panel.table();
  ASSERT_EQ(table.rowCount(), 2000);
  std::vector<int> seen;
  double last = -1;
  for (int r = 0; r < table.rowCount(); ++r) {
    const int note = table.item(r, 0)->data(Qt::UserRole + 1).toInt();
    ASSERT_GE(note, 0);
    ASSERT_LT(note, 2000);
    seen.push_back(note);
    const auto& e = c.userEvents()[static_cast<std::size_t>(note)];
    EXPECT_EQ(table.item(r, 2)->text().toStdString(), e.text);
    EXPECT_EQ(table.item(r, 0)->text(), QString::number(e.timeS, 'f', 3));
    EXPECT_GE(e.timeS, last) << "in time order";
    last = e.timeS;
  }
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(std::adjacent_find(seen.begin(), seen.end()), seen.end()) << "no note twice";
  // Deleting the second of two alike deletes that one: its neighbours keep their places.
  int row = -1;
  for (int r = 0; r < table.rowCount() && row < 0; ++r)
    if (table.item(r, 0)->data(Qt::UserRole + 1).toInt() == 70) row = r;  // like note 0
  ASSERT_GE(row, 0);
  table.setCurrentCell(row, 0);
  panel.deleteSelected();
  ASSERT_EQ(c.userEvents().size(), 1999u);
  EXPECT_EQ(c.userEvents()[69].text, notes[69].text);
  EXPECT_EQ(c.userEvents()[70].text, notes[71].text);
}

// In the window the labels go above the top plot of each column and the marks through all of
// them, in presenter mode too (the pause plot's labels piled up there).
TEST(Timeline, OnlyTheTopPlotOfAColumnLabelsTheMarks) {
  const RunWindow a("default", 31);
  ASSERT_TRUE(a.ran);
  MainWindow& w = a.w;
  LiveController& c = a.c;
  w.resize(1280, 720);
  w.show();
  QCoreApplication::processEvents();
  Dashboard& d = test::part<Dashboard>(w, "dashboard");
  for (bool presenter : {false, true}) {
    d.setPresenterMode(presenter);
    QCoreApplication::processEvents();
    d.refresh(true, true);
    TimePlot* dirty = d.timePlot(PlotId::DirtyPages);
    TimePlot* pauses = d.timePlot(PlotId::Pauses);
    const QStringList labels = dirty->eventLabels();
    EXPECT_TRUE(std::any_of(labels.begin(), labels.end(), [](const QString& l) {
      return l.startsWith(QStringLiteral("rt-dd"));
    })) << labels.join('|').toStdString();
    EXPECT_TRUE(pauses->eventLabels().isEmpty()) << pauses->eventLabels().join('|').toStdString();
    EXPECT_EQ(pauses->eventMarks().size(), dirty->eventMarks().size());
    EXPECT_GE(pauses->eventMarks().size(), 3u);
  }
}

}  // namespace
}  // namespace throttlelab::ui
