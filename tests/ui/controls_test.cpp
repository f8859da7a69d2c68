// SPDX-License-Identifier: GPL-3.0-or-later
// Every control of the parameter panel and the run toolbar reaches the running engine.
#include <gtest/gtest.h>

#include <QAction>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QSlider>
#include <QSpinBox>
#include <functional>

#include "log_slider.h"
#include "parameter_panel.h"
#include "run_controls.h"
#include "throttlelab/engine/simulator.h"
#include "ui_test_support.h"

namespace throttlelab::ui {
namespace {

using test::advance;
using test::builtin;
using test::settle;

constexpr std::int64_t kMiB = 1024 * 1024;

LiveController::Options pausedOptions() {
  LiveController::Options o;
  o.startRunning = false;
  return o;
}

/// A paused run of `scenario` with a parameter panel wired to it, as in the window.
struct Rig {
  explicit Rig(const engine::Scenario& scenario) : controller(pausedOptions()) {
    QObject::connect(&panel, &ParameterPanel::scenarioEdited, &controller,
                     [this](const engine::Scenario& s) { lastError = controller.reconfigure(s); });
    controller.load(scenario);
    panel.setScenario(controller.scenario());
  }
  const engine::Scenario& engineScenario() const { return controller.snapshot()->scenario; }

  LiveController controller;
  ParameterPanel panel;
  QString lastError;
};

struct ControlCase {
  std::string name;
  std::function<void(ParameterPanel&)> act;
  std::function<bool(const engine::Scenario&)> applied;  ///< checked on the engine's copy
  const char* scenario = "default";
};

void PrintTo(const ControlCase& c, std::ostream* os) {
  *os << c.name;
}

class EachControl : public ::testing::TestWithParam<ControlCase> {};

TEST_P(EachControl, ChangesTheRunningEngine) {
  const ControlCase& c = GetParam();
  Rig rig(builtin(c.scenario));
  ASSERT_TRUE(settle(rig.controller));
  ASSERT_FALSE(c.applied(rig.engineScenario())) << "the change is already in the scenario";
  c.act(rig.panel);
  EXPECT_TRUE(rig.lastError.isEmpty()) << rig.lastError.toStdString();
  ASSERT_TRUE(settle(rig.controller));
  EXPECT_TRUE(c.applied(rig.engineScenario()));
  EXPECT_EQ(rig.engineScenario(), rig.controller.scenario());
}

const engine::TaskSpec& rt(const engine::Scenario& s) {
  for (const auto& t : s.tasks)
    if (t.sched != engine::SchedClass::Other) return t;
  static const engine::TaskSpec none{.count = -1};
  return none;
}

INSTANTIATE_TEST_SUITE_P(
    ParameterPanel, EachControl,
    ::testing::Values(
        ControlCase{"WritersSpinBox", [](auto& p) { p.writers()->spinBox()->setValue(40); },
                    [](const auto& s) { return s.tasks[0].count == 40; }},
        ControlCase{"WritersSliderAtMaximum",
                    [](auto& p) { p.writers()->slider()->setValue(1000); },
                    [](const auto& s) { return s.tasks[0].count == 10000; }},
        ControlCase{"WritersSliderAtZero", [](auto& p) { p.writers()->slider()->setValue(0); },
                    [](const auto& s) { return s.tasks[0].count == 0; }},
        ControlCase{"BlockSize", [](auto& p) { p.blockSize()->spinBox()->setValue(64); },
                    [](const auto& s) { return s.tasks[0].blockKiB == 64; }},
        ControlCase{"ThinkTime", [](auto& p) { p.thinkTime()->spinBox()->setValue(50); },
                    [](const auto& s) { return s.tasks[0].thinkMs == 50; }},
        ControlCase{"RtWriters", [](auto& p) { p.rtWriters()->setValue(3); },
                    [](const auto& s) { return rt(s).count == 3; }},
        ControlCase{"RtWritersAddAGroupWhenThereIsNone",
                    [](auto& p) {
                      p.rtPriority()->setValue(70);
                      p.rtWriters()->setValue(2);
                    },
                    [](const auto& s) {
                      return rt(s).count == 2 && rt(s).sched == engine::SchedClass::Fifo &&
                             rt(s).rtPriority == 70;
                    },
                    "one-dd"},
        ControlCase{"RtClass", [](auto& p) { p.rtClass()->setCurrentIndex(1); },
                    [](const auto& s) { return rt(s).sched == engine::SchedClass::RoundRobin; }},
        ControlCase{"RtPriority", [](auto& p) { p.rtPriority()->setValue(80); },
                    [](const auto& s) { return rt(s).rtPriority == 80; }},
        ControlCase{"DirtyRatio", [](auto& p) { p.dirtyRatio()->setValue(40); },
                    [](const auto& s) { return s.vm.dirtyRatio == 40 && s.vm.dirtyBytes == 0; }},
        ControlCase{"DirtyModeBytes", [](auto& p) { p.dirtyMode()->setCurrentIndex(1); },
                    [](const auto& s) { return s.vm.dirtyBytes == 409 * kMiB; }},
        ControlCase{"DirtyBytes",
                    [](auto& p) {
                      p.dirtyMode()->setCurrentIndex(1);
                      p.dirtyBytesMiB()->setValue(100);
                    },
                    [](const auto& s) { return s.vm.dirtyBytes == 100 * kMiB; }},
        ControlCase{"BackgroundRatio", [](auto& p) { p.backgroundRatio()->setValue(5); },
                    [](const auto& s) { return s.vm.dirtyBackgroundRatio == 5; }},
        ControlCase{"BackgroundBytes",
                    [](auto& p) {
                      p.backgroundMode()->setCurrentIndex(1);
                      p.backgroundBytesMiB()->setValue(64);
                    },
                    [](const auto& s) { return s.vm.dirtyBackgroundBytes == 64 * kMiB; }},
        ControlCase{"ExpireCentisecs", [](auto& p) { p.expireCentisecs()->setValue(1500); },
                    [](const auto& s) { return s.vm.dirtyExpireCentisecs == 1500; }},
        ControlCase{"WritebackCentisecs", [](auto& p) { p.writebackCentisecs()->setValue(100); },
                    [](const auto& s) { return s.vm.dirtyWritebackCentisecs == 100; }},
        ControlCase{"MemoryMiB", [](auto& p) { p.memoryMiB()->spinBox()->setValue(4096); },
                    [](const auto& s) { return s.machine.memoryMiB == 4096; }},
        ControlCase{"Cpus", [](auto& p) { p.cpus()->setValue(8); },
                    [](const auto& s) { return s.machine.cpus == 8; }},
        ControlCase{"DeviceBandwidth", [](auto& p) { p.deviceMBps()->spinBox()->setValue(120); },
                    [](const auto& s) { return s.devices[0].writeMBps == 120; }},
        ControlCase{"SeekTime", [](auto& p) { p.seekMs()->setValue(2.5); },
                    [](const auto& s) { return s.devices[0].seekMs == 2.5; }}),
    [](const auto& param) { return param.param.name; });

TEST(ParameterPanel, OffersTheEnginesPolicies) {
  ParameterPanel panel;
  const auto names = engine::Simulator::policyNames();
  ASSERT_EQ(panel.policy()->count(), static_cast<int>(names.size()));
  for (std::size_t i = 0; i < names.size(); ++i)
    EXPECT_EQ(panel.policy()->itemText(static_cast<int>(i)).toStdString(), names[i]);
}

TEST(ParameterPanel, ShowsAScenarioWithoutEmitting) {
  ParameterPanel panel;
  int edits = 0;
  QObject::connect(&panel, &ParameterPanel::scenarioEdited, [&] { ++edits; });
  panel.setScenario(builtin("ten-dd"));
  EXPECT_EQ(edits, 0);
  EXPECT_EQ(panel.writers()->value(), 10);
  EXPECT_EQ(panel.dirtyRatio()->value(), builtin("ten-dd").vm.dirtyRatio);
}

TEST(ParameterPanel, InvalidEditIsRefusedWithTheKey) {
  Rig rig(builtin("default"));
  ASSERT_TRUE(settle(rig.controller));
  engine::Scenario bad = rig.controller.scenario();
  bad.vm.dirtyBytes = 1;  // below the two-page minimum
  const QString error = rig.controller.reconfigure(bad);
  EXPECT_TRUE(error.contains(QStringLiteral("vm.dirty_bytes"))) << error.toStdString();
  EXPECT_EQ(rig.controller.scenario().vm.dirtyBytes, 0);
}

TEST(ParameterPanel, WriterCountShowsInTheNextSamples) {
  Rig rig(builtin("default"));
  ASSERT_TRUE(advance(rig.controller, 1));
  const std::size_t before = rig.controller.snapshot()->tasks.size();
  const int alive = rig.controller.history().back().tasks;
  rig.panel.writers()->spinBox()->setValue(12);  // the first group had 2
  ASSERT_TRUE(advance(rig.controller, 1));
  EXPECT_EQ(rig.controller.snapshot()->tasks.size(), before + 10);
  EXPECT_GE(rig.controller.taskInfos().size(), before + 10);
  EXPECT_EQ(rig.controller.history().back().tasks, alive + 10);
}

TEST(ParameterPanel, DirtyRatioMovesTheThresholdInTheNextSamples) {
  Rig rig(builtin("default"));
  ASSERT_TRUE(advance(rig.controller, 1));
  const engine::Pages before = rig.controller.history().back().threshPages;
  ASSERT_GT(before, 0);
  rig.panel.dirtyRatio()->setValue(40);  // from 20
  ASSERT_TRUE(advance(rig.controller, 1));
  const engine::Pages after = rig.controller.history().back().threshPages;
  EXPECT_GT(after, before * 3 / 2);
}

TEST(RunControls, StepAdvancesOneControlPeriod) {
  LiveController controller(pausedOptions());
  RunControls controls;
  QObject::connect(&controls, &RunControls::stepRequested, &controller, &LiveController::step);
  controller.load(builtin("default"));
  ASSERT_TRUE(settle(controller));
  controls.stepAction()->trigger();
  ASSERT_TRUE(settle(controller));
  ASSERT_TRUE(test::waitFor([&] {
    controller.frame();
    return !controller.status().running && controller.status().simTimeS > 0;
  }));
  EXPECT_NEAR(controller.status().simTimeS, 0.2, 1e-9);
  EXPECT_FALSE(controller.isRunning());
  EXPECT_EQ(controller.history().size(), 2u);  // samples at 0.1 s and 0.2 s
}

TEST(RunControls, SpeedAndRunReachTheWorker) {
  LiveController controller(pausedOptions());
  RunControls controls;
  QObject::connect(&controls, &RunControls::speedChanged, &controller, &LiveController::setSpeed);
  QObject::connect(&controls, &RunControls::runToggled, &controller, &LiveController::setRunning);
  controller.load(builtin("default"));
  controls.speedBox()->setCurrentIndex(controls.speedBox()->findData(10.0));
  controls.runAction()->trigger();
  ASSERT_TRUE(settle(controller));
  EXPECT_EQ(controller.status().targetSpeed, 10);
  EXPECT_TRUE(controller.status().running);
  EXPECT_EQ(controls.runAction()->text(), QStringLiteral("Pause"));
  controls.speedBox()->setCurrentIndex(controls.speedBox()->findData(0.0));
  controls.runAction()->trigger();
  ASSERT_TRUE(settle(controller));
  EXPECT_TRUE(controller.status().asFastAsPossible);
  EXPECT_FALSE(controller.status().running);
}

TEST(RunControls, ResetRestartsFromZeroWithTheNewSeed) {
  LiveController controller(pausedOptions());
  controller.load(builtin("default"));
  ASSERT_TRUE(advance(controller, 2));
  controller.setSeed(42);
  controller.reset();
  ASSERT_TRUE(settle(controller));
  EXPECT_EQ(controller.snapshot()->scenario.seed, 42u);
  EXPECT_EQ(controller.status().simTimeS, 0);
  EXPECT_TRUE(controller.history().empty());
}

}  // namespace
}  // namespace throttlelab::ui
