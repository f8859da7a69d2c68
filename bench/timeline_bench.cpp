// SPDX-License-Identifier: GPL-3.0-or-later
// Opening a session's timeline: prints figures (not a test). For sessions with 0, 5,000 and
// 50,000 notes and one with a 20 MB note, written to a temporary directory: the time to read
// the file (SessionFile::read), to put its notes into the Timeline panel (setNotes, which
// rebuilds the list), to rebuild it once more (what every engine event arriving in a running
// session costs) and to draw the panel; to put the timeline on the dashboard's plots and draw
// them (their marks and labels); and the growth of the process's peak memory (the most of any
// run). Medians of 3.
//
//   timeline_bench [RUNS]
//
// Runs offscreen unless DISPLAY is set. Use the Release build: build/release/bench/timeline_bench
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "dashboard.h"
#include "live_controller.h"
#include "proc_status.h"
#include "session_file.h"
#include "throttlelab/engine/scenario.h"
#include "timeline_panel.h"

namespace {

using namespace throttlelab;
using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

/// Main's (79f1ca1) TimelinePanel::refresh matching, kept here to be timed beside ours: for
/// every event of the timeline, the first unused equal note (every event with every note).
std::size_t mainsMatching(const std::vector<engine::RunEvent>& events,
                          const std::vector<engine::RunEvent>& notes) {
  std::vector<bool> used(notes.size(), false);
  std::size_t matched = 0;
  for (const auto& e : events)
    for (std::size_t i = 0; i < notes.size(); ++i)
      if (!used[i] && notes[i] == e) {
        used[i] = true;
        ++matched;
        break;
      }
  return matched;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

/// A session of the default scenario with `count` notes of `bytes` characters each.
QByteArray sessionWithNotes(int count, int bytes) {
  QJsonArray events;
  for (int i = 0; i < count; ++i) {
    QString text = QStringLiteral("note %1 ").arg(i);
    if (bytes > text.size()) text += QString(bytes - text.size(), QLatin1Char('x'));
    events.append(QJsonObject{{"timeS", i * 0.001}, {"kind", "note"}, {"text", text}});
  }
  const engine::Scenario scenario = engine::loadScenario("default");
  QJsonObject root{{"schemaVersion", 1},
                   {"kind", "throttlelab-session"},
                   {"scenario", QJsonDocument::fromJson(
                                    QByteArray::fromStdString(engine::scenarioToJson(scenario)))
                                    .object()},
                   {"window", QJsonObject{{"historyWindow", "10min"},
                                          {"speed", "1"},
                                          {"running", false},
                                          {"visiblePlots", QJsonArray{}},
                                          {"events", events}}}};
  return QJsonDocument(root).toJson(QJsonDocument::Compact);
}

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
    qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
  QTemporaryDir dir;

  struct Case {
    const char* name;
    int notes;
    int bytes;
  };
  const Case cases[] = {{"0 notes", 0, 0},
                        {"5,000 notes", 5000, 0},
                        {"50,000 notes", 50000, 0},
                        {"one 20 MB note", 1, 20 << 20}};
  std::printf("%-16s %8s %10s %10s %11s %10s %10s %9s %12s\n", "session", "file MB", "read ms",
              "notes ms", "rebuild ms", "drawn ms", "plots ms", "peak +MB", "main match ms");
  for (const Case& c : cases) {
    const QString path = dir.filePath(QStringLiteral("s.json"));
    {
      QFile f(path);
      if (!f.open(QIODevice::WriteOnly)) return 1;
      f.write(sessionWithNotes(c.notes, c.bytes));
    }
    const double fileMB = static_cast<double>(QFile(path).size()) / 1e6;
    std::vector<double> read, notes, rebuild, drawn, plots, peak, mainMatch;
    QString refused;
    for (int r = 0; r < runs; ++r) {
      const double before = static_cast<double>(test::procStatusKiB("VmHWM", 0));
      ui::LiveController::Options options;
      options.startRunning = false;
      ui::LiveController live(options);
      ui::TimelinePanel panel(live, [] { return 0.0; });
      auto t = Clock::now();
      const ui::SessionFile::ReadResult result = ui::SessionFile::read(path);
      read.push_back(msSince(t));
      if (!result.state) {
        refused = result.error;
        continue;
      }
      t = Clock::now();
      live.setNotes(result.state->events);
      notes.push_back(msSince(t));
      t = Clock::now();
      panel.refresh();
      rebuild.push_back(msSince(t));
      // Drawn: the panel laid out and painted with its first rows (a note's text in them).
      panel.resize(900, 300);
      t = Clock::now();
      panel.grab();
      drawn.push_back(msSince(t));
      // The plots: every event a mark, labels where there is room, drawn.
      ui::Dashboard dashboard;
      dashboard.resize(1280, 720);
      t = Clock::now();
      dashboard.setEvents(live.timeline(), &live.scenario());
      dashboard.grab();
      plots.push_back(msSince(t));
      peak.push_back((static_cast<double>(test::procStatusKiB("VmHWM", 0)) - before) / 1024);
      // Main's matching of the same timeline (its refresh did this on every rebuild).
      t = Clock::now();
      const std::size_t matched = mainsMatching(live.timeline(), live.userEvents());
      mainMatch.push_back(msSince(t));
      if (matched != live.userEvents().size()) std::printf("  main matched %zu\n", matched);
    }
    if (!refused.isEmpty()) {
      std::printf("%-16s %8.1f %10.1f   refused: %s\n", c.name, fileMB, median(read),
                  refused.left(100).toUtf8().constData());
      continue;
    }
    std::printf("%-16s %8.1f %10.1f %10.1f %11.1f %10.1f %10.1f %9.0f %12.1f\n", c.name, fileMB,
                median(read), median(notes), median(rebuild), median(drawn), median(plots),
                *std::max_element(peak.begin(), peak.end()), median(mainMatch));
    std::fflush(stdout);
  }
  return 0;
}
