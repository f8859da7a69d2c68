// SPDX-License-Identifier: GPL-3.0-or-later
// GUI frame benchmark: prints figures (not a test). Drives LiveController::frame() directly,
// so a measured frame is exactly: drain the worker, append to the histories and the graphs,
// update the task table, and replot every visible plot (immediately, so the time is real).
//
//   gui_bench [--frames N] [--case K]... [--no-memory] [--no-snapshots] [--per-graph] [--still]
//
// --case K (1-4, repeatable) runs only those frame cases; --no-memory skips the peak-memory run;
// --no-snapshots runs the memory case without the engine's snapshot store (to see its share);
// --per-graph prints what each graph adds to its plot's replot; --still keeps the engine paused
// while the frames are measured, so every frame redraws the same data (for instruction counts:
// valgrind --tool=callgrind --toggle-collect='*measureFrames*' gui_bench --still --frames 300).
//
// Runs offscreen unless DISPLAY is set (use xvfb-run to include X11 software rendering).
#include <QApplication>
#include <QFile>
#include <QThread>
#include <QVBoxLayout>
#include <QWidget>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "dashboard.h"
#include "live_controller.h"
#include "qcp.h"
#include "task_table.h"
#include "task_table_model.h"
#include "throttlelab/engine/scenario.h"

namespace {

using namespace throttlelab;
using Clock = std::chrono::steady_clock;

/// VmHWM or VmRSS from /proc/self/status, in MiB.
double procStatusMiB(const char* key) {
  QFile f(QStringLiteral("/proc/self/status"));
  if (!f.open(QIODevice::ReadOnly)) return -1;
  for (const QByteArray& line : f.readAll().split('\n'))
    if (line.startsWith(key))
      return line.mid(static_cast<int>(std::strlen(key))).trimmed().split(' ').front().toDouble() /
             1024;
  return -1;
}

/// The dashboard and a task table in one 1600×1000 window, as in the app; or, for a projector,
/// the dashboard alone in presenter mode (thick lines, large fonts, its own choice of plots).
struct Rig {
  explicit Rig(ui::LiveController::Options options, QSize size = QSize(1600, 1000),
               bool presenter = false)
      : controller(options), table(&model) {
    auto* layout = new QVBoxLayout(&window);
    layout->addWidget(&dashboard, 4);
    layout->addWidget(&table, 1);
    if (presenter) {
      table.hide();  // presenter mode hides the task dock
      QFont f = window.font();
      f.setPointSizeF(std::max(13.0, f.pointSizeF() * 1.4));
      window.setFont(f);
      dashboard.setPresenterMode(true);
    }
    window.resize(size);
    window.show();
    controller.setDashboard(&dashboard);
    controller.setTaskModel(&model);
  }

  /// Runs to `simS` as fast as possible, draining and drawing as the app would.
  void prefill(double simS) {
    bool done = false;
    QObject::connect(&controller, &ui::LiveController::runForFinished, [&] { done = true; });
    controller.runFor(simS);
    while (!done) {
      QCoreApplication::processEvents();
      controller.frame();
      QThread::msleep(16);
    }
  }

  ui::LiveController controller;
  QWidget window;
  ui::Dashboard dashboard;
  ui::TaskTableModel model;
  ui::TaskTable table;
};

/// CPU time of the calling thread, in ms: what a frame costs the GUI thread, whoever else
/// shares the cores.
double threadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

struct FrameTimes {
  std::vector<double> ms;
  std::vector<double> cpuMs;
  double wallS = 0;
  std::size_t samples = 0;
  static double percentileOf(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0
                     : v[std::min(v.size() - 1,
                                  static_cast<std::size_t>(p * static_cast<double>(v.size())))];
  }
  double percentile(double p) const { return percentileOf(ms, p); }
  double mean() const {
    return ms.empty() ? 0
                      : std::accumulate(ms.begin(), ms.end(), 0.0) / static_cast<double>(ms.size());
  }
};

/// `frames` frames paced by a 60 Hz clock (as the app's timer), the engine running live at
/// `speed` so that new samples arrive between frames. Each frame replots every visible plot.
// Not inlined, so that valgrind --toggle-collect can find it by name.
[[gnu::noinline]] FrameTimes measureFrames(Rig& rig, int frames, double speed, bool still) {
  rig.controller.setSpeed(speed);
  rig.controller.setRunning(!still);
  FrameTimes out;
  const auto period = std::chrono::microseconds(16667);
  auto next = Clock::now();
  const auto start = Clock::now();
  for (int i = 0; i < frames; ++i) {
    std::this_thread::sleep_until(next);
    next += period;
    QCoreApplication::processEvents();
    const auto t0 = Clock::now();
    const double cpu0 = threadCpuMs();
    const ui::FrameStats stats = rig.controller.frame(/*immediateReplot=*/true, /*force=*/true);
    out.ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    out.cpuMs.push_back(threadCpuMs() - cpu0);
    out.samples += stats.samples;
    if (Clock::now() > next) next = Clock::now();  // a slow frame delays the next, as a timer would
  }
  out.wallS = std::chrono::duration<double>(Clock::now() - start).count();
  rig.controller.setRunning(false);
  return out;
}

engine::Scenario writers(const char* builtin) {
  engine::Scenario s = engine::loadScenario(builtin);
  s.durationS = 1e6;
  return s;
}

/// The GUI thread's mean CPU time for one immediate replot of `plot`.
double replotCpuMs(QCustomPlot* plot, int times = 20) {
  const double t0 = threadCpuMs();
  for (int i = 0; i < times; ++i) plot->replot(QCustomPlot::rpImmediateRefresh);
  return (threadCpuMs() - t0) / times;
}

/// Mean replot time (CPU) of each visible plot, to see where a frame goes.
void printPerPlot(Rig& rig) {
  std::printf("  replot per plot (CPU):");
  for (ui::PlotId id : rig.dashboard.visiblePlots())
    std::printf(" %s %.2f ms,", qPrintable(ui::plotKey(id)),
                replotCpuMs(rig.dashboard.plotWidget(id)));
  std::printf("\n");
}

/// What each graph of each visible plot adds to its replot: the replot time with that graph
/// hidden, subtracted from the time with everything shown.
void printPerGraph(Rig& rig) {
  const auto mean = [](QCustomPlot* p) { return replotCpuMs(p, 10); };
  for (ui::PlotId id : rig.dashboard.visiblePlots()) {
    QCustomPlot* p = rig.dashboard.plotWidget(id);
    const double all = mean(p);
    std::printf("  %s %.1f ms (%dx%d):", qPrintable(ui::plotKey(id)), all, p->width(), p->height());
    for (int g = 0; g < p->graphCount(); ++g) {
      QCPGraph* graph = p->graph(g);
      if (!graph->visible()) continue;
      graph->setVisible(false);
      const double without = mean(p);
      graph->setVisible(true);
      std::printf(" %s %.1f,", qPrintable(graph->name()), all - without);
    }
    std::printf("\n");
  }
}

/// What each part of each visible plot costs its replot (CPU): the replot with that part off,
/// subtracted from the replot with everything on. "paint" is what is left with every part off
/// (clearing, blending and flushing the plot's paint buffers).
void printPerPart(Rig& rig) {
  const auto mean = [](QCustomPlot* p) { return replotCpuMs(p, 10); };
  for (ui::PlotId id : rig.dashboard.visiblePlots()) {
    QCustomPlot* p = rig.dashboard.plotWidget(id);
    const double all = mean(p);
    const QList<QCPAxis*> axes = p->axisRect()->axes();
    std::vector<QCPGraph*> shown;
    for (int g = 0; g < p->graphCount(); ++g)
      if (p->graph(g)->visible()) shown.push_back(p->graph(g));
    std::vector<QCPLayoutElement*> texts;
    for (QCPLayoutElement* e : p->plotLayout()->elements(true))
      if (qobject_cast<QCPTextElement*>(e)) texts.push_back(e);
    const std::vector<std::pair<const char*, std::function<void(bool)>>> parts = {
        {"legend", [&](bool on) { p->legend->setVisible(on); }},
        {"titles",
         [&](bool on) {
           for (auto* e : texts) e->setVisible(on);
         }},
        {"tick labels",
         [&](bool on) {
           for (auto* a : axes) a->setTickLabels(on);
         }},
        {"axis labels",
         [&, saved = std::vector<QString>()](bool on) mutable {
           if (!on) {
             saved.clear();
             for (auto* a : axes) saved.push_back(a->label()), a->setLabel(QString());
           } else {
             for (qsizetype i = 0; i < axes.size(); ++i)
               axes[i]->setLabel(saved[static_cast<std::size_t>(i)]);
           }
         }},
        {"grid",
         [&](bool on) {
           for (auto* a : axes) a->grid()->setVisible(on);
         }},
        {"overlay", [&](bool on) { p->layer(QStringLiteral("overlay"))->setVisible(on); }},
        {"graphs",
         [&](bool on) {
           for (auto* g : shown) g->setVisible(on);
         }},
    };
    std::printf("  %s parts (CPU, ms of %.1f):", qPrintable(ui::plotKey(id)), all);
    for (const auto& [name, set] : parts) {
      set(false);
      const double without = mean(p);
      set(true);
      std::printf(" %s %.2f,", name, all - without);
    }
    for (const auto& part : parts) part.second(false);
    std::printf(" paint %.2f\n", mean(p));
    for (const auto& part : parts) part.second(true);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int frames = 400;
  bool memory = true;
  bool snapshots = true;
  bool perGraph = false;
  bool still = false;
  std::vector<int> only;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--no-memory") memory = false;
    if (arg == "--no-snapshots") snapshots = false;
    if (arg == "--per-graph") perGraph = true;
    if (arg == "--still") still = true;
    if (i + 1 >= argc) continue;
    if (arg == "--frames") frames = std::max(300, std::atoi(argv[i + 1]));
    if (arg == "--case") only.push_back(std::atoi(argv[i + 1]));
  }
  if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
    qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  std::printf("gui_bench: Qt %s, platform %s, window 1600x1000, %d frames per case\n", qVersion(),
              qPrintable(QGuiApplication::platformName()), frames);

  // Peak memory first, while the process is fresh: one simulated hour, 1,000 writers,
  // history "everything kept", no decimation (every 0.1 s sample kept: the worst case).
  if (memory) {
    ui::LiveController::Options o;
    o.startRunning = false;
    o.decimate = false;
    o.keepSnapshots = snapshots;
    Rig rig(o);
    rig.controller.setHistoryWindow(ui::HistoryWindow::Everything);
    rig.controller.load(writers("thousand-dd"));
    QCoreApplication::processEvents();
    const double startRss = procStatusMiB("VmRSS:");
    const auto t0 = Clock::now();
    rig.prefill(3600);
    const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
    std::printf("\n[memory] 1,000 writers, 3600 s simulated (everything kept%s) in %.1f s wall\n",
                snapshots ? "" : ", no snapshots", wall);
    std::printf("  history: %zu samples; VmHWM %.1f MiB, VmRSS %.1f MiB (target <= 300 MiB)\n",
                rig.controller.history().size(), procStatusMiB("VmHWM:"), procStatusMiB("VmRSS:"));
    std::size_t points = 0;
    const auto& tasks = rig.controller.taskHistory();
    for (const int t : tasks.tasks()) points += tasks.points(t)->size();
    std::printf("  before the run: VmRSS %.1f MiB; task history %zu tasks, %zu points\n", startRss,
                tasks.tasks().size(), points);
  }

  struct Case {
    const char* label;
    const char* scenario;
    double speed;
    QSize size;
    bool presenter;
  };
  const QSize normal(1600, 1000), projector(1280, 720);
  int number = 0;
  for (const Case c :
       {Case{"100 writers", "hundred-dd", 10, normal, false},
        Case{"1,000 writers", "thousand-dd", 10, normal, false},
        Case{"100 writers, presenter 1280x720", "hundred-dd", 10, projector, true},
        Case{"1,000 writers, presenter 1280x720", "thousand-dd", 10, projector, true}}) {
    ++number;
    if (!only.empty() && std::find(only.begin(), only.end(), number) == only.end()) continue;
    ui::LiveController::Options o;
    o.startRunning = false;
    o.decimate = false;  // the full 6,000 samples of ten minutes in every graph
    Rig rig(o, c.size, c.presenter);
    rig.controller.setHistoryWindow(ui::HistoryWindow::Last10min);
    rig.controller.load(writers(c.scenario));
    rig.prefill(600);
    const FrameTimes t = measureFrames(rig, frames, c.speed, still);
    std::printf("\n[frame] %s, 10 min of history (%zu samples), engine %s\n", c.label,
                rig.controller.history().size(),
                still ? "paused" : qPrintable(QStringLiteral("live at %1x").arg(c.speed)));
    std::printf(
        "  frame (drain + append + table + replot %zu visible plots): median %.2f ms, p95 %.2f "
        "ms, max %.2f ms, mean %.2f ms\n",
        rig.dashboard.visiblePlots().size(), t.percentile(0.5), t.percentile(0.95),
        t.ms.empty() ? 0 : *std::max_element(t.ms.begin(), t.ms.end()), t.mean());
    std::printf(
        "  %.1f fps achieved with a 60 Hz frame clock; %.0f fps possible (1000 / mean); "
        "%.1f samples per frame\n",
        static_cast<double>(t.ms.size()) / t.wallS, 1000.0 / std::max(t.mean(), 1e-3),
        static_cast<double>(t.samples) / static_cast<double>(t.ms.size()));
    std::printf("  the GUI thread's CPU time per frame: median %.2f ms, p95 %.2f ms\n",
                FrameTimes::percentileOf(t.cpuMs, 0.5), FrameTimes::percentileOf(t.cpuMs, 0.95));
    printPerPlot(rig);
    if (perGraph) {
      printPerGraph(rig);
      printPerPart(rig);
    }
  }
  std::printf(
      "\ntargets: p95 <= 16 ms at 100 and 1,000 writers, normal and presenter; peak <= 300 "
      "MiB\n");
  return 0;
}
