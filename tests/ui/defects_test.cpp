// SPDX-License-Identifier: GPL-3.0-or-later
// Defects found while teaching with the window, each checked where it showed.
#include <gtest/gtest.h>

#include <QApplication>
#include <QSlider>
#include <QSpinBox>
#include <QTest>

#include "dashboard.h"
#include "log_slider.h"
#include "parameter_panel.h"
#include "pause_plot.h"
#include "qcp.h"
#include "time_plot.h"

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

}  // namespace
}  // namespace throttlelab::ui
