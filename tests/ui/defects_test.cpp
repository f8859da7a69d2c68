// SPDX-License-Identifier: GPL-3.0-or-later
// Defects found while teaching with the window, each checked where it showed.
#include <gtest/gtest.h>

#include <QApplication>
#include <QSlider>
#include <QSpinBox>
#include <QTest>

#include "bandwidth_plot.h"
#include "dashboard.h"
#include "live_controller.h"
#include "log_slider.h"
#include "memory_plot.h"
#include "parameter_panel.h"
#include "pause_plot.h"
#include "qcp.h"
#include "time_plot.h"
#include "ui_test_support.h"

namespace throttlelab::ui {
namespace {

TEST(Defects, PauseLegendListsTasksByPidNotByFirstPause) {
  QWidget host;
  PausePlot plot(&host);
  std::map<int, engine::TaskInfo> infos;
  const int pids[] = {1002, 1000, 1001};
  for (int task = 0; task < 3; ++task)
    infos[task] = engine::TaskInfo{.index = task, .pid = pids[task], .name = "dd"};
  plot.setTaskInfos(infos);
  // Task 0 (pid 1002) pauses first, then 1 and 2.
  TaskSampleBuffer samples(8);
  for (int task = 0; task < 3; ++task)
    samples.push_back(
        engine::TaskSample{.time = engine::atSeconds(1 + task), .task = task, .pauseMs = 10});
  plot.appendTaskSamples(samples);
  QStringList names;
  QCPLegend* legend = plot.widget()->legend;
  for (int i = 0; i < legend->itemCount(); ++i)
    if (auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->item(i)))
      if (item->plottable()->name().startsWith(QStringLiteral("dd ")))
        names << item->plottable()->name();
  EXPECT_EQ(names, (QStringList{"dd 1000", "dd 1001", "dd 1002"}));
}

TEST(Defects, DirtyPlotAxisSaysWhatItCountsOnceInPages) {
  Dashboard dashboard;
  dashboard.setUnitsPages(true);
  const QString label = dashboard.plotWidget(PlotId::DirtyPages)->yAxis->label();
  EXPECT_FALSE(label.contains(QStringLiteral("pages (pages)"))) << label.toStdString();
  EXPECT_TRUE(label.endsWith(QStringLiteral("(pages)"))) << label.toStdString();
}

TEST(Defects, WritersSliderHasFineStepsAtTheLowEnd) {
  ParameterPanel panel;
  panel.setScenario(engine::loadScenario("default"));
  const auto sliders = panel.findChildren<LogSlider*>();
  ASSERT_FALSE(sliders.isEmpty());
  LogSlider* writers = sliders.front();
  ASSERT_EQ(writers->spinBox()->maximum(), 10000);
  QSlider* slider = writers->slider();
  // Half of the travel stays within a class-sized count; the top still reaches 10,000.
  slider->setValue(slider->maximum() / 2);
  EXPECT_LE(writers->value(), 10);
  slider->setValue(slider->maximum());
  EXPECT_EQ(writers->value(), 10000);
  // And every count from 1 to 10 has a position of its own.
  std::set<double> seen;
  for (int p = slider->minimum(); p <= slider->maximum(); ++p) {
    slider->setValue(p);
    if (writers->value() <= 10) seen.insert(writers->value());
  }
  for (int n = 1; n <= 10; ++n) EXPECT_TRUE(seen.count(n)) << n;
}

TEST(Defects, AfterTypingInASpinBoxTheKeyboardGoesBackToTheWindow) {
  ParameterPanel panel;
  panel.setScenario(engine::loadScenario("default"));
  panel.show();
  panel.activateWindow();
  ASSERT_TRUE(QTest::qWaitForWindowActive(&panel));
  QSpinBox* ratio = nullptr;
  for (auto* box : panel.findChildren<QSpinBox*>())
    if (box->suffix() == QStringLiteral(" %") && box->isVisible()) ratio = box;
  ASSERT_NE(ratio, nullptr);
  ratio->setFocus();
  ASSERT_TRUE(ratio->hasFocus());
  QTest::keyClick(ratio, Qt::Key_A, Qt::ControlModifier);
  QTest::keyClicks(ratio, QStringLiteral("15"));
  QTest::keyClick(ratio, Qt::Key_Return);
  EXPECT_EQ(ratio->value(), 15);
  // Space and "." are Run/Pause and Step again, not text for the box.
  EXPECT_FALSE(ratio->hasFocus());
}

TEST(Defects, WatermarksStandApartOnAGigabyteMemoryAxis) {
  // 2 GiB of free memory and page cache, watermarks of 6–10 MiB (the default machine's).
  QWidget host;
  MemoryPlot plot(&host);
  host.resize(600, 260);
  plot.widget()->resize(600, 260);
  host.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&host));
  SampleBuffer samples(16);
  for (int i = 0; i < 10; ++i) {
    engine::Sample s;
    s.time = engine::atSeconds(i);
    s.freePages = 512000 - 1000 * i;
    s.filePages = 20000 + 1000 * i;
    s.dirtyPages = 500 * i;
    s.wmarkMinPages = 1448;
    s.wmarkLowPages = 1972;
    s.wmarkHighPages = 2496;
    samples.push_back(s);
  }
  plot.appendSamples(samples);
  plot.setTimeRange(0, 9);
  plot.autoscaleValues();
  plot.replot(true);
  QCustomPlot* w = plot.widget();
  const double mib = 256;  // pages per MiB
  ASSERT_GE(w->yAxis->range().upper, 512000 / mib);
  const double bottom = w->axisRect()->bottom();
  const double min = w->yAxis->coordToPixel(1448 / mib);
  const double low = w->yAxis->coordToPixel(1972 / mib);
  const double high = w->yAxis->coordToPixel(2496 / mib);
  // Each line clear of the axis and of its neighbours (pixels grow downwards).
  SCOPED_TRACE("axis " + std::to_string(w->yAxis->range().lower) + "–" +
               std::to_string(w->yAxis->range().upper) + " MiB");
  EXPECT_GE(bottom - min, 8);
  EXPECT_GE(min - low, 4);
  EXPECT_GE(low - high, 4);
}

TEST(Defects, AStartUpSpikeDoesNotHoldTheBandwidthAxis) {
  // A 10 MB/s disk: the estimates start at the kernel's 100 MB/s guess and writers dirty at
  // memory speed until freerun; a minute on, the axis follows what the disk does now.
  LiveController::Options o;
  o.startRunning = false;
  o.decimate = false;
  LiveController controller(o);
  Dashboard dashboard;
  controller.setDashboard(&dashboard);
  dashboard.resize(1300, 900);
  dashboard.show();
  controller.load(test::builtin("default", {{"device.writeMBps", "10"}}));
  ASSERT_TRUE(test::advance(controller, 60));
  controller.frame(true, true);
  QCustomPlot* w = dashboard.plotWidget(PlotId::Bandwidth);
  const double top = w->yAxis->range().upper;
  EXPECT_LT(top, 40) << "MB/s";
  // Still holds what the disk writes in view.
  bool found = false;
  const QCPRange recent(w->xAxis->range().upper - 20, w->xAxis->range().upper);
  const QCPRange device = w->graph(0)->getValueRange(found, QCP::sdBoth, recent);
  ASSERT_TRUE(found);
  EXPECT_GE(top, device.upper);
}

/// 10,000 writers on the default disk: it writes up to 56 MB/s while they run, 13 MB/s once
/// they are gone. The axis cut at 3 × the last 30 s (41 MB/s) hid the first part.
TEST(Defects, TheBandwidthAxisKeepsWhatTheDeviceWroteEarlierInView) {
  QWidget host;
  BandwidthPlot plot(&host);
  plot.widget()->resize(800, 300);
  const auto kbps = [](double mbps) { return mbps * 1e6 / 1024; };
  SampleBuffer samples(1400);
  for (int i = 1; i <= 1300; ++i) {
    const double t = i / 10.0;
    engine::Sample s;
    s.time = engine::atSeconds(t);
    engine::DeviceSample d;
    const bool many = t < 45;
    d.deviceWriteKBps = kbps(many ? (i % 7 == 0 ? 56 : 48) : 13);
    d.writeBwKBps = kbps(many ? 41 : 13);
    d.avgWriteBwKBps = kbps(many ? 41 : 13);
    d.dirtyRateKBps = kbps(t < 2 ? 3000 : (many ? 45 : 13));  // memory speed while free
    s.devices.push_back(d);
    samples.push_back(s);
  }
  plot.appendSamples(samples);
  plot.setTimeRange(0, 130);
  plot.autoscaleValues();
  QCustomPlot* w = plot.widget();
  EXPECT_GE(w->yAxis->range().upper, 56) << "MB/s";
  // The start-up is still cut: dirty_rate's 3,000 MB/s does not flatten the rest.
  EXPECT_LT(w->yAxis->range().upper, 100) << "MB/s";
}

}  // namespace
}  // namespace throttlelab::ui
