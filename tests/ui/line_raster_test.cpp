// SPDX-License-Identifier: GPL-3.0-or-later
// Drawing a line one pixel column at a time (line_raster) and the reduction of a series to the
// points a pixel column shows (FastGraph::columnPoints): each column covers what the line covers
// there, the pen widens it as much as QPainter's would, and the reduction keeps every column's
// extremes and ends.
#include <gtest/gtest.h>

#include <QImage>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <random>

#include "fast_graph.h"
#include "line_raster.h"
#include "qcp.h"

namespace throttlelab::ui {
namespace {

using raster::ColumnSpans;
using raster::Stroke;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(ColumnSpans, ASegmentCoversInEachColumnWhatItCrossesThere) {
  ColumnSpans spans(0, 10);
  spans.addSegment(QPointF(1.0, 0.0), QPointF(5.0, 8.0));  // 2 px down per column
  for (int c = 1; c <= 4; ++c) {
    ASSERT_TRUE(spans.covered(c)) << c;
    EXPECT_FLOAT_EQ(spans.top(c), 2.0f * static_cast<float>(c - 1)) << c;
    EXPECT_FLOAT_EQ(spans.bottom(c), 2.0f * static_cast<float>(c)) << c;
  }
  // The end lies on column 5's left edge: it touches that column at one height.
  ASSERT_TRUE(spans.covered(5));
  EXPECT_FLOAT_EQ(spans.top(5), 8.0f);
  EXPECT_FLOAT_EQ(spans.bottom(5), 8.0f);
  EXPECT_FALSE(spans.covered(0));
  EXPECT_FALSE(spans.covered(6));
}

TEST(ColumnSpans, AVerticalSegmentAndStepsStayInTheirColumn) {
  ColumnSpans spans(0, 10);
  spans.addSegment(QPointF(3.5, 9.0), QPointF(3.5, 2.0));
  EXPECT_FLOAT_EQ(spans.top(3), 2.0f);
  EXPECT_FLOAT_EQ(spans.bottom(3), 9.0f);
  // A step line holds each value until the next point's x, then steps.
  ColumnSpans steps(0, 10);
  steps.addPolyline({QPointF(0.5, 1.0), QPointF(4.5, 6.0)}, /*stepLeft=*/true);
  for (int c = 0; c < 4; ++c) {
    EXPECT_FLOAT_EQ(steps.top(c), 1.0f) << c;
    EXPECT_FLOAT_EQ(steps.bottom(c), 1.0f) << c;
  }
  EXPECT_FLOAT_EQ(steps.top(4), 1.0f);
  EXPECT_FLOAT_EQ(steps.bottom(4), 6.0f);
}

TEST(ColumnSpans, GapsAndFarPointsDrawNothingOutsideTheRange) {
  ColumnSpans spans(100, 10);
  spans.addPolyline({QPointF(101, 5), QPointF(kNaN, kNaN), QPointF(105, 5)}, false);
  for (int c = 100; c < 110; ++c) EXPECT_FALSE(spans.covered(c)) << c;
  // A segment from far outside crosses the range at its own heights there, without overflow.
  spans.addSegment(QPointF(-1e18, 0), QPointF(1e18, 1e6));
  ASSERT_TRUE(spans.covered(100));
  ASSERT_TRUE(spans.covered(109));
  EXPECT_NEAR(spans.top(100), 5e5, 1);
  spans.addSegment(QPointF(-5, 1), QPointF(50, 1));  // ends before the range
  EXPECT_NEAR(spans.top(100), 5e5, 1);
}

TEST(ColumnSpans, RunsCoverWhatThePolylineOfTheirPointsCovers) {
  // A line handed over a column at a time (as FastGraph draws) covers exactly what the same
  // points as one polyline cover, and both what their segments cover one by one: within a
  // column, across columns, at gaps and far points.
  std::mt19937 random(7);
  std::uniform_real_distribution<double> y(-20, 60);
  std::uniform_real_distribution<double> step(0.05, 1.6);
  for (int trial = 0; trial < 50; ++trial) {
    QVector<QPointF> all;
    ColumnSpans runs(-3, 40);
    std::optional<QPointF> previous;
    double x = -5;
    while (x < 40) {
      // One column's points, 1 to 4 of them, mostly inside one column.
      QPointF points[4];
      const int count = 1 + static_cast<int>(random() % 4);
      for (int k = 0; k < count; ++k, x += step(random) / 3) points[k] = QPointF(x, y(random));
      if (random() % 17 == 0) points[count - 1].setY(kNaN);
      if (random() % 23 == 0) points[0].setY(1e30);
      runs.addRun(previous ? &*previous : nullptr, points, count);
      for (int k = 0; k < count; ++k) all.append(points[k]);
      previous = points[count - 1];
      if (random() % 13 == 0) {  // a gap
        all.append(QPointF(kNaN, kNaN));
        previous.reset();
      }
      x += step(random);
    }
    ColumnSpans polyline(-3, 40);
    polyline.addPolyline(all, false);
    // Segment by segment: the general case for every segment that crosses a column's edge.
    ColumnSpans segments(-3, 40);
    for (qsizetype i = 1; i < all.size(); ++i) {
      if (std::floor(all[i - 1].x()) == std::floor(all[i].x()))
        segments.addPolyline({all[i - 1], all[i]}, false);
      else
        segments.addSegment(all[i - 1], all[i]);
    }
    for (int c = -3; c < 37; ++c) {
      ASSERT_EQ(runs.covered(c), segments.covered(c)) << "trial " << trial << " column " << c;
      ASSERT_EQ(polyline.covered(c), segments.covered(c)) << "trial " << trial << " column " << c;
      if (!runs.covered(c)) continue;
      EXPECT_EQ(runs.top(c), segments.top(c)) << "trial " << trial << " column " << c;
      EXPECT_EQ(runs.bottom(c), segments.bottom(c)) << "trial " << trial << " column " << c;
      EXPECT_EQ(polyline.top(c), segments.top(c)) << "trial " << trial << " column " << c;
      EXPECT_EQ(polyline.bottom(c), segments.bottom(c)) << "trial " << trial << " column " << c;
    }
  }
}

QImage blank(int w = 20, int h = 20) {
  QImage image(w, h, QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::white);
  return image;
}

int darkness(const QImage& image, int x, int y) {
  return 255 - qGray(image.pixel(x, y));
}

TEST(FillSpans, AnAntialiasedLineSharesItsPixelBetweenTheRowsItStraddles) {
  for (const double y : {10.5, 10.0, 10.25}) {
    QImage image = blank();
    ColumnSpans spans(0, 20);
    spans.addSegment(QPointF(2, y), QPointF(15, y));
    raster::fillSpans(image, image.rect(), spans, {qPremultiply(qRgb(0, 0, 0)), 1, true});
    // A one-pixel line at y covers [y - 0.5, y + 0.5]: each row in proportion.
    for (int row = 8; row <= 12; ++row) {
      const double cover =
          std::max(0.0, std::min(row + 1.0, y + 0.5) - std::max(1.0 * row, y - 0.5));
      EXPECT_NEAR(darkness(image, 8, row), 255 * cover, 3) << "y " << y << " row " << row;
    }
    EXPECT_EQ(darkness(image, 1, 10) + darkness(image, 17, 10), 0) << "nothing past its ends";
  }
}

TEST(FillSpans, AWideLineIsAsWideAsItsPenBothWays) {
  QImage image = blank(40, 40);
  ColumnSpans spans(0, 40);
  spans.addSegment(QPointF(20.5, 5), QPointF(20.5, 30));  // vertical
  spans.addSegment(QPointF(5, 35.5), QPointF(30, 35.5));  // horizontal
  raster::fillSpans(image, image.rect(), spans, {qPremultiply(qRgb(0, 0, 0)), 5, false});
  int across = 0;
  for (int x = 10; x < 30; ++x) across += darkness(image, x, 15) > 128;
  EXPECT_EQ(across, 5) << "a 5 px pen is 5 px wide across a vertical line";
  int down = 0;
  for (int y = 30; y < 40; ++y) down += darkness(image, 10, y) > 128;
  EXPECT_EQ(down, 5) << "and 5 px tall across a horizontal one";
}

TEST(FillSpans, DashesLeaveTheirGapsEmpty) {
  QImage image = blank(60, 10);
  ColumnSpans spans(0, 60);
  spans.addSegment(QPointF(0, 5.5), QPointF(60, 5.5));
  Stroke stroke{qPremultiply(qRgb(0, 0, 0)), 1, false};
  stroke.dash = {4, 2};
  raster::fillSpans(image, image.rect(), spans, stroke);
  for (int x = 0; x < 60; ++x) EXPECT_EQ(darkness(image, x, 5) > 128, x % 6 < 4) << "column " << x;
}

TEST(FillSpans, OnlyTheClipIsTouchedAndTranslucentPensBlend) {
  QImage image = blank();
  ColumnSpans spans(-5, 40);
  spans.addSegment(QPointF(-5, 10.5), QPointF(30, 10.5));
  raster::fillSpans(image, QRect(5, 0, 5, 20), spans,
                    {qPremultiply(qRgba(0, 0, 0, 128)), 1, false});
  for (int x = 0; x < 20; ++x) {
    const bool inside = x >= 5 && x < 10;
    EXPECT_NEAR(darkness(image, x, 10), inside ? 128 : 0, 2) << x;
  }
  EXPECT_EQ(raster::blendOver(qRgba(255, 255, 255, 255), qPremultiply(qRgba(0, 0, 0, 255)), 256),
            qRgba(0, 0, 0, 255));
  EXPECT_EQ(raster::blendOver(qRgba(10, 20, 30, 255), 0, 256), qRgba(10, 20, 30, 255));
}

TEST(FillBand, FillsBetweenTwoLinesWhereBothAre) {
  QImage image = blank();
  ColumnSpans upper(0, 20), lower(0, 20);
  upper.addSegment(QPointF(2, 4), QPointF(12, 4));
  lower.addSegment(QPointF(5, 14), QPointF(18, 14));
  raster::fillBand(image, image.rect(), upper, lower, qPremultiply(qRgb(0, 0, 0)), false);
  EXPECT_EQ(darkness(image, 3, 9), 0) << "only where both lines are";
  EXPECT_EQ(darkness(image, 8, 9), 255);
  EXPECT_EQ(darkness(image, 8, 4), 255);
  EXPECT_EQ(darkness(image, 8, 13), 255);
  EXPECT_EQ(darkness(image, 8, 15), 0);
  EXPECT_EQ(darkness(image, 15, 9), 0);
}

TEST(StampDots, CopiesTheDotToEachPlaceInsideTheClip) {
  QImage dot(3, 3, QImage::Format_ARGB32_Premultiplied);
  dot.fill(Qt::transparent);
  dot.setPixel(1, 1, qPremultiply(qRgb(0, 0, 0)));
  dot.setPixel(0, 1, qPremultiply(qRgba(0, 0, 0, 128)));
  QImage image = blank();
  raster::stampDots(image, QRect(0, 0, 10, 20), {dot, QPoint(1, 1)},
                    {QPoint(4, 4), QPoint(15, 4), QPoint(0, 0)});
  EXPECT_EQ(darkness(image, 4, 4), 255);
  EXPECT_NEAR(darkness(image, 3, 4), 128, 2);
  EXPECT_EQ(darkness(image, 15, 4), 0) << "outside the clip";
  EXPECT_EQ(darkness(image, 0, 0), 255) << "a dot at the edge keeps its part inside";
  EXPECT_EQ(darkness(image, 5, 5), 0);
}

/// A 0–600 key axis over 944 pixels and a 0–100 value axis over 300, as a dirty-pages plot.
struct Axes {
  Axes() {
    plot.resize(1000, 400);
    plot.xAxis->setRange(0, 600);
    plot.yAxis->setRange(0, 100);
    plot.axisRect()->setOuterRect(QRect(0, 0, 944, 300));
    plot.axisRect()->setMinimumMargins(QMargins(0, 0, 0, 0));
    plot.axisRect()->setAutoMargins(QCP::msNone);
    plot.axisRect()->setMargins(QMargins(0, 0, 0, 0));
    plot.replot();
  }
  QCustomPlot plot;
};

TEST(ColumnPoints, KeepsEveryColumnsExtremesAndEndsAndLittleElse) {
  Axes axes;
  QCPGraphDataContainer data;
  std::mt19937 random(7);
  std::uniform_real_distribution<double> noise(0, 100);
  QVector<QCPGraphData> points;
  // Keys off the columns' edges, where the two ways of mapping could round apart.
  for (int i = 0; i <= 6000; ++i) points.append(QCPGraphData(i * 0.1 + 0.013, noise(random)));
  data.add(points, true);
  const PixelMap key(axes.plot.xAxis);
  const PixelMap value(axes.plot.yAxis);
  const QVector<QPointF> kept =
      FastGraph::columnPoints(data.constBegin(), data.constEnd(), key, value);
  // Every column's lowest and highest pixel, first and last point, found the slow way.
  struct Column {
    double top = 1e9, bottom = -1e9;
    QPointF first{kNaN, kNaN}, last{kNaN, kNaN};
  };
  std::map<int, Column> all, reduced;
  const auto gather = [](std::map<int, Column>& into, QPointF p) {
    Column& c = into[static_cast<int>(std::floor(p.x()))];
    c.top = std::min(c.top, p.y());
    c.bottom = std::max(c.bottom, p.y());
    if (std::isnan(c.first.x())) c.first = p;
    c.last = p;
  };
  for (const QCPGraphData& d : points)
    gather(all,
           QPointF(axes.plot.xAxis->coordToPixel(d.key), axes.plot.yAxis->coordToPixel(d.value)));
  for (const QPointF& p : kept) gather(reduced, p);
  ASSERT_EQ(all.size(), reduced.size());
  for (const auto& [column, c] : all) {
    const Column& r = reduced[column];
    EXPECT_NEAR(r.top, c.top, 1e-6) << column;
    EXPECT_NEAR(r.bottom, c.bottom, 1e-6) << column;
    EXPECT_NEAR(r.first.x(), c.first.x(), 1e-6) << column;
    EXPECT_NEAR(r.last.y(), c.last.y(), 1e-6) << column;
  }
  EXPECT_LE(kept.size(), 4 * static_cast<qsizetype>(all.size()));
  EXPECT_LT(kept.size(), points.size() * 3 / 4) << "6.4 points a column: most are dropped";
}

TEST(ColumnPoints, AGapIsOneNaNAndLonePointsStay) {
  Axes axes;
  QCPGraphDataContainer data;
  data.add(QVector<QCPGraphData>{{10, 50}, {20, kNaN}, {21, kNaN}, {30, 60}, {40, 70}}, true);
  const QVector<QPointF> kept = FastGraph::columnPoints(
      data.constBegin(), data.constEnd(), PixelMap(axes.plot.xAxis), PixelMap(axes.plot.yAxis));
  ASSERT_EQ(kept.size(), 4);
  EXPECT_TRUE(std::isnan(kept[1].y()));
  EXPECT_NEAR(kept[2].x(), axes.plot.xAxis->coordToPixel(30), 1e-9);
  EXPECT_NEAR(kept[3].y(), axes.plot.yAxis->coordToPixel(70), 1e-9);
}

TEST(PixelMap, MapsAsTheAxisDoesOnLinearAndLogAxes) {
  Axes axes;
  axes.plot.yAxis->setScaleType(QCPAxis::stLogarithmic);
  axes.plot.yAxis->setRange(1, 1 << 20);
  const PixelMap log(axes.plot.yAxis);
  const PixelMap linear(axes.plot.xAxis);
  for (const double v : {1.5, 100.0, 4096.0, 999999.0})
    EXPECT_NEAR(log(v), axes.plot.yAxis->coordToPixel(v), 1e-3) << v;
  EXPECT_EQ(log(0), axes.plot.yAxis->coordToPixel(0)) << "where QCPAxis puts what it cannot show";
  for (const double k : {-10.0, 0.0, 123.4, 600.0}) {
    EXPECT_NEAR(linear(k), axes.plot.xAxis->coordToPixel(k), 1e-9) << k;
    EXPECT_NEAR(linear.coord(linear(k)), k, 1e-9) << k;
  }
}

TEST(ValueRangeOver, FindsWhatQCustomPlotFinds) {
  QCPGraphDataContainer data;
  std::mt19937 random(11);
  std::uniform_real_distribution<double> noise(-50, 100);
  QVector<QCPGraphData> points;
  for (int i = 0; i < 3000; ++i) points.append(QCPGraphData(i, i % 97 == 0 ? kNaN : noise(random)));
  data.add(points, true);
  for (const QCPRange keys : {QCPRange(0, 3000), QCPRange(100.5, 200.5), QCPRange(-10, 5)})
    for (const bool positive : {false, true}) {
      bool foundOurs = false, foundTheirs = false;
      const QCPRange ours = valueRangeOver(data, keys, positive, foundOurs);
      const QCPRange theirs =
          data.valueRange(foundTheirs, positive ? QCP::sdPositive : QCP::sdBoth, keys);
      ASSERT_EQ(foundOurs, foundTheirs);
      EXPECT_EQ(ours.lower, theirs.lower) << keys.lower << " " << positive;
      EXPECT_EQ(ours.upper, theirs.upper) << keys.lower << " " << positive;
    }
  bool found = true;
  valueRangeOver(data, QCPRange(5000, 6000), false, found);
  EXPECT_FALSE(found);
}

}  // namespace
}  // namespace throttlelab::ui
