// SPDX-License-Identifier: GPL-3.0-or-later
// Live host mode over a fixture /proc: polls become samples in the plots, the
// readout states where dirty pages stand between freerun and the threshold, and recording
// tracepoints is refused without the right to.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QComboBox>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QPushButton>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTemporaryDir>
#include <cmath>
#include <csignal>
#include <map>

#include "host_monitor.h"
#include "host_readout.h"
#include "host_view.h"
#include "interrupt_guard.h"
#include "qcp.h"
#include "series_spec.h"
#include "time_plot.h"
#include "trace_plot.h"
#include "window_parts.h"
#include "window_rig.h"

namespace throttlelab::ui {
namespace {

using test::part;
using test::partPtr;

const QString kProc = QStringLiteral(THROTTLELAB_TEST_DATA_DIR "/proc-6.18");

/// Copies a fixture /proc directory, so a test can change its numbers between polls.
bool copyTree(const QString& from, const QString& to) {
  QDirIterator it(from, QDir::Files, QDirIterator::Subdirectories);
  while (it.hasNext()) {
    const QString source = it.next();
    const QString target = to + source.mid(from.size());
    QDir().mkpath(QFileInfo(target).absolutePath());
    QFile::remove(target);
    if (!QFile::copy(source, target)) return false;
  }
  return true;
}

std::map<QString, qint64> readVmstat(const QString& root) {
  QFile f(root + QStringLiteral("/vmstat"));
  EXPECT_TRUE(f.open(QIODevice::ReadOnly));
  std::map<QString, qint64> out;
  for (const QByteArray& line : f.readAll().split('\n')) {
    const QList<QByteArray> parts = line.split(' ');
    if (parts.size() == 2) out[QString::fromLatin1(parts[0])] = parts[1].toLongLong();
  }
  return out;
}

/// Rewrites some counters of a fixture's vmstat.
void setVmstat(const QString& root, const std::map<QString, qint64>& values) {
  QFile f(root + QStringLiteral("/vmstat"));
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  QList<QByteArray> lines = f.readAll().split('\n');
  f.close();
  for (QByteArray& line : lines) {
    const QList<QByteArray> parts = line.split(' ');
    if (parts.size() != 2) continue;
    const auto it = values.find(QString::fromLatin1(parts[0]));
    if (it != values.end()) line = parts[0] + ' ' + QByteArray::number(it->second);
  }
  ASSERT_TRUE(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
  f.write(lines.join('\n'));
}

TEST(HostLive, PollsTheFixtureIntoThePlotsAndTheReadoutSaysHowCloseToThrottling) {
  test::WindowRig rig;
  MainWindow& w = *rig.window;
  const QString root = rig.path(QStringLiteral("proc"));
  ASSERT_TRUE(copyTree(kProc + QStringLiteral("/a"), root));
  // Between freerun and thresh, so the readout gives a share of the way.
  const auto fixture = readVmstat(root);
  const qint64 thresh = fixture.at(QStringLiteral("nr_dirty_threshold"));
  const qint64 bg = fixture.at(QStringLiteral("nr_dirty_background_threshold"));
  ASSERT_GT(thresh, bg);
  const qint64 freerun = (thresh + bg) / 2;
  const qint64 level = freerun + (thresh - freerun) * 2 / 5;  // 40 % of the way
  setVmstat(root,
            {{QStringLiteral("nr_dirty"), level - 1000}, {QStringLiteral("nr_writeback"), 1000}});

  HostView& view = part<HostView>(w, "hostView");
  view.setProcRoot(root);
  partPtr<QAction>(w, "watchHostAction")->trigger();
  ASSERT_EQ(w.centralView(), CentralView::Host);
  auto* stack = qobject_cast<QStackedWidget*>(w.centralWidget());
  EXPECT_EQ(stack->currentWidget(), &view);
  EXPECT_TRUE(view.isActive());
  EXPECT_FALSE(part<LiveController>(w, "liveController").isRunning());
  ASSERT_TRUE(view.pollNow());
  ASSERT_TRUE(view.pollNow());
  ASSERT_GE(view.monitor().history().size(), 3u);  // start() polls once too
  EXPECT_TRUE(view.monitor().lastError().isEmpty()) << view.monitor().lastError().toStdString();

  const engine::Sample& s = view.monitor().history().back();
  EXPECT_EQ(s.dirtyPages, level - 1000);
  EXPECT_EQ(s.writebackPages, 1000);
  EXPECT_EQ(s.threshPages, thresh);
  EXPECT_EQ(s.bgThreshPages, bg);
  const HostThrottleState st = hostThrottleState(s);
  EXPECT_EQ(st.zone, ThrottleZone::Throttled);
  const double pct =
      static_cast<double>(level - freerun) / static_cast<double>(thresh - freerun) * 100;
  EXPECT_NEAR(st.wayPct, pct, 0.01);
  const QString text = view.readoutText();
  EXPECT_TRUE(text.contains(QStringLiteral("%1 % of the way from freerun").arg(pct, 0, 'f', 0)))
      << text.toStdString();
  EXPECT_TRUE(text.contains(formatValue(static_cast<double>(level) / 256))) << text.toStdString();

  // Every host plot holds the polls; the dirty plot draws both thresholds and the dirty level.
  const auto* dirty = view.plots().front()->widget();
  ASSERT_GE(dirty->graphCount(), 7);
  std::map<QString, double> last;
  for (int g = 0; g < dirty->graphCount(); ++g) {
    if (!dirty->graph(g)->visible()) continue;  // the recorded series, without a recording
    ASSERT_GE(dirty->graph(g)->data()->size(), 3) << dirty->graph(g)->name().toStdString();
    last[dirty->graph(g)->name()] = (dirty->graph(g)->data()->constEnd() - 1)->value;
  }
  EXPECT_DOUBLE_EQ(last.at(QStringLiteral("thresh")), static_cast<double>(thresh) / 256);
  EXPECT_DOUBLE_EQ(last.at(QStringLiteral("bg_thresh")), static_cast<double>(bg) / 256);
  EXPECT_DOUBLE_EQ(last.at(QStringLiteral("dirty+writeback")), static_cast<double>(level) / 256);

  // The host writes back: below bg_thresh the readout says there is no throttling.
  setVmstat(root, {{QStringLiteral("nr_dirty"), bg / 4}, {QStringLiteral("nr_writeback"), 0}});
  ASSERT_TRUE(view.pollNow());
  EXPECT_EQ(hostThrottleState(view.monitor().history().back()).zone, ThrottleZone::BelowBackground);
  EXPECT_TRUE(view.readoutText().contains(QStringLiteral("no throttling")))
      << view.readoutText().toStdString();

  // Leaving host mode stops polling.
  partPtr<QAction>(w, "watchHostAction")->trigger();
  EXPECT_EQ(w.centralView(), CentralView::Dashboard);
  EXPECT_FALSE(view.isActive());
  EXPECT_TRUE(rig.notifier.messages.isEmpty()) << rig.notifier.messages.join('\n').toStdString();
}

TEST(HostLive, TheUnchangedFixtureIsAtTheThresholdAndOneSecondLaterBelowBackground) {
  // The fixture as captured: a/ with 4 dd just past thresh, b/ a second later after writeback.
  HostView view;
  view.setProcRoot(kProc + QStringLiteral("/a"));
  view.start();
  const auto a = readVmstat(kProc + QStringLiteral("/a"));
  const engine::Sample& s = view.monitor().history().back();
  EXPECT_EQ(s.dirtyPages, a.at(QStringLiteral("nr_dirty")));
  EXPECT_EQ(s.writebackPages, a.at(QStringLiteral("nr_writeback")));
  const auto zone = hostThrottleState(s).zone;
  const qint64 level = a.at(QStringLiteral("nr_dirty")) + a.at(QStringLiteral("nr_writeback"));
  EXPECT_EQ(zone, level >= a.at(QStringLiteral("nr_dirty_threshold")) ? ThrottleZone::AboveThresh
                                                                      : ThrottleZone::Throttled);
  EXPECT_TRUE(view.readoutText().startsWith(QStringLiteral("dirty ")))
      << view.readoutText().toStdString();
  view.stop();
  EXPECT_FALSE(view.isActive());

  view.setProcRoot(kProc + QStringLiteral("/b"));
  view.start();
  const auto b = readVmstat(kProc + QStringLiteral("/b"));
  ASSERT_EQ(view.monitor().history().size(), 1u);  // a new start begins a new history
  const engine::Sample& later = view.monitor().history().back();
  EXPECT_EQ(later.dirtyPages + later.writebackPages,
            b.at(QStringLiteral("nr_dirty")) + b.at(QStringLiteral("nr_writeback")));
  EXPECT_EQ(hostThrottleState(later).zone, ThrottleZone::BelowBackground);
  EXPECT_TRUE(view.readoutText().contains(QStringLiteral("no throttling")))
      << view.readoutText().toStdString();
  view.stop();
}

TEST(HostLive, RecordingIsRefusedWithoutTheRightToTrace) {
  HostView view;
  view.setRecordingAllowed(false, QStringLiteral("Recording tracepoints needs root."));
  EXPECT_FALSE(view.recordButton()->isEnabled());
  EXPECT_TRUE(view.recordButton()->toolTip().contains(QStringLiteral("root")));
  view.setRecording(true);
  EXPECT_FALSE(view.isRecording());
  EXPECT_FALSE(view.recordButton()->isChecked());
  EXPECT_FALSE(view.hasRecording());
}

/// A directory that looks like a mounted tracefs to host::TraceRecorder: enable files and
/// tracing_on as plain files, trace_pipe a FIFO the test writes kernel lines into. No root and
/// no real tracefs is involved.
struct FakeTracefs {
  explicit FakeTracefs(const QString& where) : root(where) {
    for (const char* e : kEvents) {
      QDir().mkpath(root + "/events/" + e);
      write(root + "/events/" + e + "/enable", "0\n");
    }
    write(root + "/tracing_on", "1\n");
    EXPECT_EQ(::mkfifo(QFile::encodeName(root + "/trace_pipe").constData(), 0600), 0);
  }
  static void write(const QString& path, const QByteArray& text) {
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(text);
  }
  static QByteArray read(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("unreadable");
  }
  host::TraceRecorder::Options options() const {
    host::TraceRecorder::Options o;
    o.tracefsRoot = root.toStdString();
    o.mountIfNeeded = false;  // a test never mounts anything
    return o;
  }
  static constexpr const char* kEvents[] = {"writeback/global_dirty_state",
                                            "writeback/bdi_dirty_ratelimit",
                                            "writeback/balance_dirty_pages"};
  QString root;
};

/// Starts `view` on fixture /proc "a", allowed to record into `tracefs`.
void startRecordable(HostView& view, const FakeTracefs& tracefs) {
  view.setProcRoot(kProc + QStringLiteral("/a"));
  view.setRecorderOptions(tracefs.options());
  view.setRecordingAllowed(true);
  view.start();
}

TEST(HostLive, RecordingFeedsTheRecordedPlotsAndStoppingRestoresTracing) {
  QTemporaryDir dir;
  FakeTracefs tracefs(dir.filePath(QStringLiteral("tracefs")));
  HostView view;
  startRecordable(view, tracefs);
  view.setRecording(true);
  ASSERT_TRUE(view.isRecording());
  // The recorder has trace_pipe open once a non-blocking writer can open the FIFO.
  int fd = -1;
  const QByteArray pipe = QFile::encodeName(tracefs.root + QStringLiteral("/trace_pipe"));
  ASSERT_TRUE(test::waitFor([&] {
    fd = ::open(pipe.constData(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    return fd >= 0 || !view.isRecording();
  }));
  ASSERT_GE(fd, 0);
  for (const char* e : FakeTracefs::kEvents)
    EXPECT_EQ(FakeTracefs::read(tracefs.root + "/events/" + e + "/enable"), "1\n") << e;

  // A real 10-dd trace (0.7 s, two bdi_dirty_ratelimit among its events), written into
  // trace_pipe as the kernel would hand it over.
  QFile source(QStringLiteral(THROTTLELAB_TEST_DATA_DIR "/kernel-6.18/ftrace-10-dd.txt"));
  ASSERT_TRUE(source.open(QIODevice::ReadOnly));
  QByteArray lines;
  int events = 0;
  while (!source.atEnd()) {
    const QByteArray line = source.readLine();
    if (line.startsWith('#')) continue;
    lines += line;
    ++events;
  }
  ::fcntl(fd, F_SETFL, 0);  // blocking writes from here on
  qint64 written = 0;
  while (written < lines.size()) {
    const auto n =
        ::write(fd, lines.constData() + written, static_cast<size_t>(lines.size() - written));
    ASSERT_GT(n, 0);
    written += n;
  }
  ::close(fd);
  ASSERT_TRUE(
      test::waitFor([&] { return view.recording() && view.recording()->stats.events >= events; }));

  view.setRecording(false);
  EXPECT_FALSE(view.isRecording());
  // Tracing is as it was found: the events off again, tracing_on still on.
  for (const char* e : FakeTracefs::kEvents)
    EXPECT_EQ(FakeTracefs::read(tracefs.root + "/events/" + e + "/enable"), "0\n") << e;
  EXPECT_EQ(FakeTracefs::read(tracefs.root + "/tracing_on"), "1\n");

  // What was recorded reached the recorded plots and can be saved and simulated.
  ASSERT_TRUE(view.hasRecording());
  for (TracePlot* p : view.recordedPlots()) {
    EXPECT_GT(p->pointCount(TracePlot::kMeasured), 0) << plotKey(p->id()).toStdString();
    EXPECT_FALSE(p->widget()->isHidden()) << plotKey(p->id()).toStdString();
  }
  // and global_dirty_state's level is drawn over the polled one.
  const QCustomPlot* dirtyPlot = view.plots().front()->widget();
  int traced = -1;
  for (int g = 0; g < dirtyPlot->graphCount(); ++g)
    if (dirtyPlot->graph(g)->name() == QStringLiteral("traced dirty+writeback")) traced = g;
  ASSERT_GE(traced, 0);
  EXPECT_TRUE(dirtyPlot->graph(traced)->visible());
  EXPECT_GT(dirtyPlot->graph(traced)->data()->size(), 0);
  const auto recorded = view.recording();
  ASSERT_NE(recorded, nullptr);
  EXPECT_TRUE(recorded->recordedHere);
  EXPECT_EQ(recorded->stats.events, events);
  EXPECT_FALSE(recorded->tasks.empty());
  const QString saved = dir.filePath(QStringLiteral("recording.txt"));
  EXPECT_TRUE(view.saveRecording(saved).isEmpty());
  const QByteArray text = FakeTracefs::read(saved);
  EXPECT_TRUE(text.startsWith("# tracer: nop"));
  EXPECT_TRUE(text.endsWith(lines));
  view.stop();
}

TEST(HostLive, CtrlCWhileRecordingStopsTheRecorderAndAsksTheWindowToClose) {
  QTemporaryDir dir;
  FakeTracefs tracefs(dir.filePath(QStringLiteral("tracefs")));
  HostView view;
  startRecordable(view, tracefs);
  QSignalSpy interrupted(&view, &HostView::interruptRequested);
  view.setRecording(true);
  ASSERT_TRUE(view.isRecording());
  ASSERT_TRUE(test::waitFor([&] {
    return FakeTracefs::read(tracefs.root + "/events/writeback/balance_dirty_pages/enable") ==
               "1\n" ||
           !view.isRecording();
  }));
  ASSERT_TRUE(view.isRecording());
  // Without the guard this would end the test program; with it, the next frame reacts.
  std::raise(SIGINT);
  view.pollNow();
  EXPECT_EQ(interrupted.count(), 1);
  EXPECT_FALSE(view.isRecording());
  for (const char* e : FakeTracefs::kEvents)
    EXPECT_EQ(FakeTracefs::read(tracefs.root + "/events/" + e + "/enable"), "0\n") << e;
  view.stop();
}

TEST(InterruptGuard, CatchesSigintAndPutsTheOldHandlerBack) {
  struct sigaction before {};
  sigaction(SIGINT, nullptr, &before);
  {
    InterruptGuard guard;
    EXPECT_FALSE(InterruptGuard::requested());
    std::raise(SIGINT);
    EXPECT_TRUE(InterruptGuard::requested());
  }
  struct sigaction after {};
  sigaction(SIGINT, nullptr, &after);
  EXPECT_EQ(after.sa_handler, before.sa_handler);
}

/// A fixture cgroup file under `root`.
void writeCgroupFile(const QString& root, const QString& rel, const QByteArray& text) {
  const QString path = root + QLatin1Char('/') + rel;
  QDir().mkpath(QFileInfo(path).absolutePath());
  QFile f(path);
  ASSERT_TRUE(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
  f.write(text);
}

/// The newest point of a graph, or -1 if it has none (a gap counts as none).
double lastValue(const QCustomPlot* plot, const QString& graph) {
  for (int g = 0; g < plot->graphCount(); ++g)
    if (plot->graph(g)->name() == graph && !plot->graph(g)->data()->isEmpty()) {
      const double v = (plot->graph(g)->data()->constEnd() - 1)->value;
      return std::isnan(v) ? -1 : v;
    }
  return -1;
}

TEST(HostLive, WatchesAV2CgroupAgainstItsOwnLimitsBesideTheMachine) {
  QTemporaryDir dir;
  const QString cgroups = dir.filePath(QStringLiteral("cgroup"));
  // 1 GiB limit, 512 MiB used, 256 MiB page cache of which 64 MiB dirty and 16 MiB writeback.
  writeCgroupFile(cgroups, QStringLiteral("box/memory.max"), "1073741824\n");
  writeCgroupFile(cgroups, QStringLiteral("box/memory.high"), "max\n");
  writeCgroupFile(cgroups, QStringLiteral("box/memory.current"), "536870912\n");
  writeCgroupFile(cgroups, QStringLiteral("box/memory.stat"),
                  "anon 0\nfile 268435456\nfile_dirty 67108864\nfile_writeback 16777216\n");
  HostView view;
  view.setProcRoot(kProc + QStringLiteral("/b"));
  view.setCgroupRoot(cgroups);
  auto* choice = partPtr<QComboBox>(view, "hostCgroup");
  ASSERT_GE(choice->findText(QStringLiteral("box")), 0);  // listed
  EXPECT_TRUE(view.watchCgroup(QStringLiteral("box")).isEmpty());
  view.start();
  ASSERT_TRUE(view.pollNow());
  const engine::Sample& s = view.monitor().history().back();
  ASSERT_EQ(s.cgroups.size(), 1u);
  const engine::CgroupSample& c = s.cgroups.front();
  EXPECT_EQ(c.dirtyPages, 16384);
  EXPECT_EQ(c.writebackPages, 4096);
  EXPECT_EQ(c.maxPages, 262144);
  ASSERT_GT(c.threshPages, 0);  // its own domain: v2
  // Its thresholds follow from its dirtyable memory and the fixture's vm.dirty_bytes (64 MiB),
  // turned into the ratio ceil(bytes / the machine's dirtyable pages) per 4096.
  EXPECT_LE(c.availPages, 65536 + 131072);
  const std::int64_t ratio = (67108864 + s.availPages - 1) / s.availPages;
  EXPECT_EQ(c.threshPages, ratio * c.availPages / 4096);

  const QCustomPlot* plot = partPtr<QCustomPlot>(view, "host-cgroup");
  EXPECT_FALSE(plot->isHidden());
  EXPECT_DOUBLE_EQ(lastValue(plot, QStringLiteral("cgroup dirty+writeback")), 20480.0 / 256);
  EXPECT_DOUBLE_EQ(lastValue(plot, QStringLiteral("cgroup thresh")),
                   static_cast<double>(c.threshPages) / 256);
  EXPECT_DOUBLE_EQ(lastValue(plot, QStringLiteral("memory limit")), 1024.0);
  const QString info = view.cgroupInfoText();
  EXPECT_TRUE(info.contains(QStringLiteral("cgroup box (v2, its own dirty domain)")))
      << info.toStdString();
  EXPECT_TRUE(info.contains(QStringLiteral("memory limit 1024 MiB"))) << info.toStdString();
  // The machine is still drawn beside it.
  EXPECT_GT(lastValue(partPtr<QCustomPlot>(view, "host-dirty"), QStringLiteral("thresh")), 0);

  // No longer watched: the plot goes.
  EXPECT_TRUE(view.watchCgroup(QString()).isEmpty());
  ASSERT_TRUE(view.pollNow());
  EXPECT_TRUE(view.monitor().history().back().cgroups.empty());
  EXPECT_TRUE(plot->isHidden());
  view.stop();
}

TEST(HostLive, AV1CgroupSaysItHasNoDirtyThrottlingAndItsRemovalIsNoCrash) {
  QTemporaryDir dir;
  const QString cgroups = dir.filePath(QStringLiteral("cgroup"));
  writeCgroupFile(cgroups, QStringLiteral("memory/box/memory.limit_in_bytes"),
                  "9223372036854771712\n");
  writeCgroupFile(cgroups, QStringLiteral("memory/box/memory.stat"),
                  "cache 0\ndirty 0\nwriteback 0\nhierarchical_memory_limit "
                  "9223372036854771712\ntotal_cache 104857600\ntotal_dirty 41943040\n"
                  "total_writeback 0\n");
  HostView view;
  view.setProcRoot(kProc + QStringLiteral("/b"));
  view.setCgroupRoot(cgroups);
  // A path that is no cgroup is refused by name, and nothing is watched.
  const QString bad = view.watchCgroup(QStringLiteral("nope"));
  EXPECT_TRUE(bad.contains(QStringLiteral("'nope'"))) << bad.toStdString();
  EXPECT_EQ(view.monitor().cgroup(), nullptr);

  EXPECT_TRUE(view.watchCgroup(QStringLiteral("box")).isEmpty());
  view.start();
  ASSERT_TRUE(view.pollNow());
  const engine::CgroupSample& c = view.monitor().history().back().cgroups.at(0);
  EXPECT_EQ(c.dirtyPages, 10240);
  EXPECT_EQ(c.filePages, 25600);
  EXPECT_EQ(c.maxPages, 0);
  EXPECT_EQ(c.threshPages, 0);
  QString info = view.cgroupInfoText();
  EXPECT_TRUE(info.contains(QStringLiteral("cgroup memory/box (v1)"))) << info.toStdString();
  EXPECT_TRUE(info.contains(QStringLiteral("no per-cgroup dirty throttling")))
      << info.toStdString();
  EXPECT_TRUE(info.contains(QStringLiteral("cgroup writeback needs v2"))) << info.toStdString();
  EXPECT_TRUE(info.contains(QStringLiteral("no memory limit"))) << info.toStdString();
  // v1: no thresholds to draw, and "max" draws no limit line.
  const QCustomPlot* plot = partPtr<QCustomPlot>(view, "host-cgroup");
  EXPECT_DOUBLE_EQ(lastValue(plot, QStringLiteral("cgroup dirty")), 40.0);
  EXPECT_LT(lastValue(plot, QStringLiteral("cgroup thresh")), 0);
  EXPECT_LT(lastValue(plot, QStringLiteral("memory limit")), 0);

  // Removed while watched: said so, no longer watched, and the machine is still polled.
  QSignalSpy failed(&view.monitor(), &HostMonitor::cgroupFailed);
  ASSERT_TRUE(QDir(cgroups + QStringLiteral("/memory/box")).removeRecursively());
  ASSERT_TRUE(view.pollNow());
  ASSERT_EQ(failed.count(), 1);
  EXPECT_TRUE(failed.front().at(1).toBool());
  EXPECT_EQ(view.monitor().cgroup(), nullptr);
  info = view.cgroupInfoText();
  EXPECT_TRUE(info.contains(QStringLiteral("memory/box was removed while it was watched")))
      << info.toStdString();
  ASSERT_TRUE(view.pollNow());
  EXPECT_EQ(failed.count(), 1);  // said once
  EXPECT_TRUE(view.monitor().history().back().cgroups.empty());
  view.stop();
}

TEST(HostReadout, ZonesAndShareOfTheWay) {
  engine::Sample s;
  s.threshPages = 16384;
  s.bgThreshPages = 8192;
  s.freerunPages = 12288;
  s.dirtyPages = 1000;
  EXPECT_EQ(hostThrottleState(s).zone, ThrottleZone::BelowBackground);
  s.dirtyPages = 10000;
  EXPECT_EQ(hostThrottleState(s).zone, ThrottleZone::BelowFreerun);
  EXPECT_TRUE(hostReadout(s).contains(QStringLiteral("below freerun")));
  s.dirtyPages = 13312;  // a quarter of the way from 12288 to 16384
  EXPECT_EQ(hostThrottleState(s).zone, ThrottleZone::Throttled);
  EXPECT_DOUBLE_EQ(hostThrottleState(s).wayPct, 25);
  EXPECT_TRUE(hostReadout(s).contains(QStringLiteral("25 % of the way from freerun")))
      << hostReadout(s).toStdString();
  EXPECT_TRUE(hostReadout(s).startsWith(QStringLiteral("dirty %1 MiB").arg(formatValue(52))))
      << hostReadout(s).toStdString();
  s.dirtyPages = 20000;
  EXPECT_EQ(hostThrottleState(s).zone, ThrottleZone::AboveThresh);
  s.threshPages = 0;
  EXPECT_EQ(hostThrottleState(s).zone, ThrottleZone::Unknown);
}

}  // namespace
}  // namespace throttlelab::ui
