// SPDX-License-Identifier: GPL-3.0-or-later
// The controller's formulas against values worked out by hand from docs/model.md (Eq. 1–29).
#include <gtest/gtest.h>

#include "bandwidth_estimator.h"
#include "dirty_limits.h"
#include "kernel_math.h"
#include "pause_control.h"
#include "position_control.h"
#include "rate_control.h"

namespace throttlelab::engine {
namespace {

VmConfig ratios(int ratio, int bg) {
  VmConfig vm;
  vm.dirtyRatio = ratio;
  vm.dirtyBackgroundRatio = bg;
  return vm;
}

TEST(DirtyLimits, RatiosUseThePerPagePrecisionOfTheKernel) {
  // (20*4096/100) = 819; 819 * 1e6 / 4096 = 199951; (10*4096/100) = 409 -> 99853.
  const auto t = computeDirtyThresholds(ratios(20, 10), 1'000'000, LimitBonus::None, 0);
  EXPECT_EQ(t.thresh, 199951);
  EXPECT_EQ(t.bgThresh, 99853);
}

TEST(DirtyLimits, RealTimeTasksGetAQuarterPlusOneThirtySecondOfTheLimit) {
  const auto t = computeDirtyThresholds(ratios(20, 10), 1'000'000, LimitBonus::RealTime, 199951);
  // 199951 + 49987 + 6248 and 99853 + 24963 + 6248
  EXPECT_EQ(t.thresh, 256186);
  EXPECT_EQ(t.bgThresh, 131064);
}

TEST(DirtyLimits, DirtyBytesOverridesTheRatioAndRoundsUp) {
  VmConfig vm = ratios(20, 10);
  vm.dirtyBytes = 100LL << 20;
  EXPECT_EQ(computeDirtyThresholds(vm, 1'000'000, LimitBonus::None, 0).thresh, 25600);
  vm.dirtyBytes = (100LL << 20) + 1;
  EXPECT_EQ(computeDirtyThresholds(vm, 1'000'000, LimitBonus::None, 0).thresh, 25601);
  vm.dirtyBackgroundBytes = 4096 * 10;
  EXPECT_EQ(computeDirtyThresholds(vm, 1'000'000, LimitBonus::None, 0).bgThresh, 10);
}

TEST(DirtyLimits, BackgroundAtOrAboveThresholdIsHalved) {
  const auto t = computeDirtyThresholds(ratios(20, 30), 1'000'000, LimitBonus::None, 0);
  EXPECT_EQ(t.bgThresh, t.thresh / 2);
}

TEST(DirtyLimits, DirtyableMemoryExcludesTheReserveButCountsFileCache) {
  EXPECT_EQ(dirtyableMemory(1000, 500, 200), 1301);
  EXPECT_EQ(dirtyableMemory(100, 500, 200), 501);  // free below the reserve counts as 0
}

TEST(DirtyLimits, FreerunSetpointAndLimitSitAt15And175And20Percent) {
  const auto t = computeDirtyThresholds(ratios(20, 10), 1'000'000, LimitBonus::None, 0);
  const Pages freerun = freerunCeiling(t.thresh, t.bgThresh);
  const Pages limit = hardDirtyLimit(t.thresh, 0);
  const Pages setpoint = dirtySetpoint(freerun, limit);
  EXPECT_EQ(freerun, (199951 + 99853) / 2);
  EXPECT_EQ(limit, 199951);
  EXPECT_EQ(setpoint, (freerun + limit) / 2);
  EXPECT_NEAR(static_cast<double>(setpoint) / 1e6, 0.175, 0.001);
  EXPECT_EQ(hardDirtyLimit(1000, 1200), 1200);  // a dirty_limit above thresh wins
}

TEST(DirtyLimits, DirtyLimitFollowsUpAtOnceAndDownByOneThirtySecond) {
  EXPECT_EQ(followDirtyLimit(1000, 1500, 0), 1500);
  // target = max(thresh 500, dirty 700) = 700; 1000 - (300 >> 5) = 991
  EXPECT_EQ(followDirtyLimit(1000, 500, 700), 991);
  EXPECT_EQ(followDirtyLimit(1000, 500, 100), 1000 - (500 >> 5));
  EXPECT_EQ(followDirtyLimit(1000, 1000, 2000), 1000);  // never rises towards dirty
}

TEST(PositionControl, IsTwoAtFreerunOneAtSetpointZeroAtLimit) {
  const Pages freerun = 100'000, limit = 200'000, setpoint = 150'000;
  EXPECT_NEAR(globalPosRatio(setpoint, freerun, limit) / 1024.0, 2.0, 0.01);
  EXPECT_EQ(globalPosRatio(setpoint, setpoint, limit), kPosRatioOne);
  EXPECT_NEAR(globalPosRatio(setpoint, limit, limit) / 1024.0, 0.0, 0.01);
  // Cubic: a quarter of the way from setpoint to limit gives 1 - (1/2)^3.
  EXPECT_NEAR(globalPosRatio(setpoint, 175'000, limit) / 1024.0, 1.0 - 0.125, 0.01);
}

TEST(PositionControl, IsClampedToZeroAndTwoOutsideTheLine) {
  EXPECT_EQ(globalPosRatio(150'000, 10'000, 200'000), 2 * kPosRatioOne);
  EXPECT_EQ(globalPosRatio(150'000, 260'000, 200'000), 0);
}

PositionInputs singleDevice(Pages dirty, Pages wbDirty) {
  return PositionInputs{.thresh = 200'000,
                        .bgThresh = 100'000,
                        .limit = 200'000,
                        .dirty = dirty,
                        .wbThresh = 200'000,
                        .wbBgThresh = 100'000,
                        .wbDirty = wbDirty,
                        .avgWriteBw = 14'000};
}

TEST(PositionControl, TheDeviceLineIsNeutralAtItsSetpoint) {
  // thresh 200000 and bg 100000: freerun 150000, limit 200000, setpoint 175000.
  const auto r = wbPositionRatio(singleDevice(175'000, 175'000));
  EXPECT_NEAR(r.wbSetpoint, 175'000, 5);
  EXPECT_NEAR(r.posRatio / 1024.0, 1.0, 0.01);
}

TEST(PositionControl, TheDeviceLineSlowsADeviceAboveItsSetpointAndNeverBelowAQuarter) {
  const double at = wbPositionRatio(singleDevice(175'000, 175'000)).posRatio;
  const double above = wbPositionRatio(singleDevice(175'000, 195'000)).posRatio;
  const double farAbove = wbPositionRatio(singleDevice(175'000, 199'000)).posRatio;
  EXPECT_LT(above, at);
  // span = 8 * write_bw = 112000: slope -1/112000 per page, so +20000 pages gives ~0.82
  EXPECT_NEAR(above / at, 1.0 - 20'000.0 / 112'000.0, 0.02);
  EXPECT_GE(farAbove, at / 4 - 1);
}

TEST(PositionControl, TheReserveAreaSpeedsUpADeviceRunningDry) {
  const auto low = wbPositionRatio(singleDevice(175'000, 20'000));
  const auto normal = wbPositionRatio(singleDevice(175'000, 175'000));
  EXPECT_GT(low.posRatio, 4 * normal.posRatio);
  EXPECT_EQ(wbPositionRatio(singleDevice(200'000, 150'000)).posRatio, 0);
}

TEST(BandwidthEstimator, SmoothsOverAPeriodOfFourThousandJiffies) {
  WbBandwidth wb;  // INIT_BW = 25600 pages/s
  wb.writtenStamp = 0;
  // 2000 pages in 200 jiffies at HZ=1000: (2000*1000 + 25600*(4096-200)) >> 12 = 24838
  updateWriteBandwidth(wb, 200, 2000, 1000);
  EXPECT_EQ(wb.writeBw, 24838);
  EXPECT_EQ(wb.avgWriteBw, 25600);  // old == avg: the second filter does not move
  wb.writtenStamp = 2000;
  updateWriteBandwidth(wb, 200, 4000, 1000);
  EXPECT_EQ(wb.writeBw, 24113);
  EXPECT_EQ(wb.avgWriteBw, 25600 - ((25600 - 24838) >> 3));
}

TEST(BandwidthEstimator, ALongGapTakesTheRawRate) {
  WbBandwidth wb;
  updateWriteBandwidth(wb, 5000, 70'000, 1000);  // 5 s > 4096 jiffies
  EXPECT_EQ(wb.writeBw, 14'000);
  EXPECT_EQ(wb.avgWriteBw, 14'000);
}

/// A device writing `avgWriteBw` pages/s whose dirty_ratelimit is `ratelimit` and balanced rate
/// `balanced`, after one 200 ms update (hz 1000, setpoint 200 pages) in which `dirtied` pages
/// were dirtied at `posRatio` with `dirty` pages dirty.
WbBandwidth afterRateUpdate(std::int64_t avgWriteBw, std::int64_t ratelimit, std::int64_t balanced,
                            Pages dirtied, std::int64_t posRatio, Pages dirty) {
  WbBandwidth wb;
  wb.avgWriteBw = avgWriteBw;
  wb.dirtyRatelimit = ratelimit;
  wb.balancedDirtyRatelimit = balanced;
  wb.dirtiedStamp = 0;
  updateDirtyRatelimit(wb, RateInputs{.dirtied = dirtied,
                                      .elapsedJiffies = 200,
                                      .posRatio = posRatio,
                                      .dirty = dirty,
                                      .setpoint = 200,
                                      .hz = 1000});
  return wb;
}

TEST(RateControl, BalancedRateIsWriteBandwidthOverTheNumberOfTasks) {
  // pos_ratio 2.0: task_rl = 2001; dirty_rate = 400 pages / 0.2 s = 2000 -> balanced 4000
  const WbBandwidth wb =
      afterRateUpdate(4000, 1000, WbBandwidth{}.balancedDirtyRatelimit, 400, 2048, 100);
  EXPECT_EQ(wb.lastDirtyRate, 2000);
  EXPECT_EQ(wb.lastTaskRatelimit, 2001);
  EXPECT_EQ(wb.balancedDirtyRatelimit, 4000);
  // step = min(25600, 4000, 2001) - 1000 = 1001; shift = 1000/2003 = 0; ceil(1001/8) = 126
  EXPECT_EQ(wb.dirtyRatelimit, 1126);
}

TEST(RateControl, DoesNotMoveWhenPositionAndRateErrorsDisagree) {
  // Below the setpoint (should speed up) but the rate says slow down: no step.
  const WbBandwidth wb = afterRateUpdate(4000, 1000, 4000, 2000, 1024, 100);
  EXPECT_LT(wb.balancedDirtyRatelimit, 1000);
  EXPECT_EQ(wb.dirtyRatelimit, 1000);
}

TEST(RateControl, BalancedIsCappedAtTheWriteBandwidth) {
  // task_rl = 25001; step = 50000 - 25001; shift = 1; ceil((24999 >> 1) / 8) = 1563
  const WbBandwidth wb = afterRateUpdate(4000, 50'000, 4000, 10, 512, 300);
  EXPECT_EQ(wb.balancedDirtyRatelimit, 4000);
  EXPECT_EQ(wb.dirtyRatelimit, 50'000 - 1563);
}

TEST(PauseControl, PollIntervalIsAboutTheSquareRootOfTheGap) {
  EXPECT_EQ(dirtyPollInterval(0, 256), 16);       // 1 MB gap
  EXPECT_EQ(dirtyPollInterval(0, 262'144), 512);  // 1 GB gap
  EXPECT_EQ(dirtyPollInterval(500, 400), 1);      // over thresh
}

TEST(PauseControl, MaxPauseIsAnEighthOfTheWritebackTimeCappedAt200ms) {
  EXPECT_EQ(wbMaxPause(14'000, 160'000, 1000), 200);
  EXPECT_EQ(wbMaxPause(14'000, 1'100, 1000), 11);  // 1100 / (1 + 14000/128) + 1
  EXPECT_EQ(wbMaxPause(14'000, 160'000, 250), 50);
}

// The worked case of docs/model.md, Pause control, for Wu's box (HZ=1000, write_bw 14000 pages/s).
TEST(PauseControl, OneDdPausesAboutTenMilliseconds) {
  const auto mp = wbMinPause(14'000, 14'000, 14'000, 200, 1000);
  EXPECT_EQ(mp.nrDirtiedPause, 136);
  EXPECT_EQ(mp.minPause, 6);
}

TEST(PauseControl, TenDdPauseAboutFortyMilliseconds) {
  const auto mp = wbMinPause(14'000, 1'400, 1'400, 200, 1000);
  EXPECT_EQ(mp.nrDirtiedPause, 53);
  EXPECT_EQ(mp.minPause, 20);
}

TEST(PauseControl, HundredDdHitTheThirtyTwoPageFloorAndMaxPause) {
  const auto mp = wbMinPause(14'000, 140, 140, 200, 1000);
  EXPECT_EQ(mp.nrDirtiedPause, 27);
  EXPECT_EQ(mp.minPause, 200);
}

TEST(KernelMath, Ilog2AndRoundUpPowerOfTwo) {
  EXPECT_EQ(ilog2(1), 0);
  EXPECT_EQ(ilog2(1023), 9);
  EXPECT_EQ(ilog2(1024), 10);
  EXPECT_EQ(rup2(3000), 4096u);
  EXPECT_EQ(rup2(4096), 4096u);
}

}  // namespace
}  // namespace throttlelab::engine
