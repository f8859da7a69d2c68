// SPDX-License-Identifier: GPL-3.0-or-later
// The cheaper stroke of the plots' graphs: the points it drops lie on the line it keeps, and
// the dashes it lays along a wide line follow the pen's pattern across vertices and gaps.
#include <gtest/gtest.h>

#include <QImage>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <vector>

#include "fast_graph.h"
#include "qcp.h"

namespace throttlelab::ui {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(FastGraph, DropsOnlyPointsInsideStraightRuns) {
  const QVector<QPointF> in = {{0, 5},    {1, 5}, {2, 5}, {3, 5},  // a flat run: ends kept
                               {3, 9},    {3, 7},                  // vertical zigzag: kept
                               {4, 7},    {5, 8}, {6, 9},          // a slope: kept
                               {7, kNaN}, {8, 1}, {9, 1}, {10, 1}};
  const QVector<QPointF> out = FastGraph::withoutRunPoints(in);
  const QVector<QPointF> want = {{0, 5}, {3, 5}, {3, 9},    {3, 7}, {4, 7},
                                 {5, 8}, {6, 9}, {7, kNaN}, {8, 1}, {10, 1}};
  ASSERT_EQ(out.size(), want.size());
  for (qsizetype i = 0; i < out.size(); ++i) {
    EXPECT_EQ(out[i].x(), want[i].x()) << i;
    if (std::isnan(want[i].y()))
      EXPECT_TRUE(std::isnan(out[i].y())) << i;
    else
      EXPECT_EQ(out[i].y(), want[i].y()) << i;
  }
}

TEST(FastGraph, DashesFollowThePatternAcrossVerticesAndRestartAfterGaps) {
  // 4 on, 2 off along (0,0)→(10,0)→(10,10), a gap, then (20,0)→(25,0).
  const QVector<QPointF> line = {{0, 0}, {10, 0}, {10, 10}, {11, kNaN}, {20, 0}, {25, 0}};
  const QVector<QLineF> dashes = FastGraph::dashSegments(line, {4, 2}, 0);
  const QVector<QLineF> want = {QLineF(0, 0, 4, 0), QLineF(6, 0, 10, 0),      // 6..10 ends a dash,
                                QLineF(10, 2, 10, 6), QLineF(10, 8, 10, 10),  // so a gap first
                                QLineF(20, 0, 24, 0)};  // after the gap: from the pattern's start
  EXPECT_EQ(dashes, want);
}

TEST(FastGraph, ADashCrossingAVertexGoesOnInTheNextSegment) {
  const QVector<QLineF> dashes = FastGraph::dashSegments({{0, 0}, {3, 0}, {3, 5}}, {4, 2}, 0);
  ASSERT_EQ(dashes.size(), 3);
  EXPECT_EQ(dashes[0], QLineF(0, 0, 3, 0));
  EXPECT_EQ(dashes[1], QLineF(3, 0, 3, 1));  // the last pixel of the first dash
  EXPECT_EQ(dashes[2], QLineF(3, 3, 3, 5));  // after the 2 px gap
}

TEST(FastGraph, AnOffsetStartsPartWayIntoThePattern) {
  const QVector<QLineF> dashes = FastGraph::dashSegments({{0, 0}, {10, 0}}, {4, 2}, 5);
  ASSERT_EQ(dashes.size(), 2);
  EXPECT_EQ(dashes[0], QLineF(1, 0, 5, 0));  // 5 into the pattern: 1 px of gap left
  EXPECT_EQ(dashes[1], QLineF(7, 0, 10, 0));
}

// On screen, a wide dashed graph is drawn as dashes: some of the pixels along a long flat
// line stay empty, as with QPainter's own dashes, and the drawn ones are as thick as the pen.
TEST(FastGraph, AWideDashedLineIsDrawnDashedAndAsWideAsItsPen) {
  QCustomPlot plot;
  plot.resize(400, 200);
  FastGraph* graph = addFastGraph(&plot);
  QVector<double> keys, values;
  for (int i = 0; i <= 2000; ++i) {
    keys << i * 0.05;
    values << 1.0;
  }
  graph->setData(keys, values, true);
  plot.xAxis->setRange(0, 100);
  plot.yAxis->setRange(0, 2);
  graph->setAntialiased(false);
  QPen pen(Qt::black, 4, Qt::DashLine);
  pen.setCosmetic(true);
  graph->setPen(pen);
  const QImage image = plot.toPixmap(400, 200).toImage();
  const int y = static_cast<int>(plot.yAxis->coordToPixel(1.0));
  const QRect rect = plot.axisRect()->rect();
  int on = 0, off = 0;
  for (int x = rect.left() + 2; x < rect.right() - 2; ++x)
    (qGray(image.pixel(x, y)) < 100 ? on : off)++;
  EXPECT_GT(on, off) << "dashes 4 long, gaps 2 (with square caps, even shorter gaps)";
  EXPECT_GT(off, 10) << "the line must be dashed, not solid";
  int thick = 0;
  for (int dy = -4; dy <= 4; ++dy)
    if (qGray(image.pixel(rect.left() + 3, y + dy)) < 100) ++thick;
  EXPECT_GE(thick, 3);
  EXPECT_LE(thick, 5);
}

/// A plot with a noisy line, a title, a legend and (if `cursor`) a line on the overlay layer.
void fillPlot(QCustomPlot& plot, QCPTextElement* title, bool cursor) {
  plot.setBackground(QColor(250, 250, 245));
  plot.plotLayout()->insertRow(0);
  plot.plotLayout()->addElement(0, 0, title);
  plot.legend->setVisible(true);
  // A plain graph: this compares the plots' own drawing (buffers, legend, title); FastGraph's
  // is compared with QCPGraph's below.
  QCPGraph* graph = plot.addGraph();
  graph->setName(QStringLiteral("dirty+writeback"));
  QVector<double> keys, values;
  for (int i = 0; i < 3000; ++i) {
    keys << i * 0.02;
    values << std::sin(i * 0.37) * 40 + (i % 7) * 3;
  }
  graph->setData(keys, values, true);
  graph->setPen(QPen(QColor(0, 114, 178), 1));
  plot.xAxis->setRange(0, 60);
  plot.yAxis->setRange(-50, 70);
  plot.layer(QStringLiteral("overlay"))->setMode(QCPLayer::lmBuffered);
  auto* line = new QCPItemStraightLine(&plot);
  line->setLayer(QStringLiteral("overlay"));
  line->point1->setCoords(20, 0);
  line->point2->setCoords(20, 1);
  line->setPen(QPen(Qt::red, 2));
  line->setVisible(cursor);
  plot.resize(420, 300);
  plot.replot(QCustomPlot::rpImmediateRefresh);
}

/// The largest difference of any channel of any pixel.
int largestDifference(const QImage& a, const QImage& b) {
  int most = 0;
  for (int y = 0; y < a.height(); ++y)
    for (int x = 0; x < a.width(); ++x) {
      const QRgb p = a.pixel(x, y);
      const QRgb q = b.pixel(x, y);
      most = std::max({most, std::abs(qRed(p) - qRed(q)), std::abs(qGreen(p) - qGreen(q)),
                       std::abs(qBlue(p) - qBlue(q))});
    }
  return most;
}

// FastPlot fills, copies and skips its paint buffers differently, and its legend and title keep
// their text as pixmaps; on the screen it must show what a plain QCustomPlot shows, the hover
// overlay included when something is on it (up to rounding in the blending of antialiased
// edges).
TEST(FastPlot, ShowsWhatAPlainQCustomPlotShows) {
  for (const bool cursor : {false, true}) {
    QCustomPlot plain;
    fillPlot(plain, new QCPTextElement(&plain, QStringLiteral("Dirty pages")), cursor);
    FastPlot fast;
    fillPlot(fast, new FastText(&fast, QStringLiteral("Dirty pages")), cursor);
    const QImage a = plain.grab().toImage().convertToFormat(QImage::Format_RGB32);
    const QImage b = fast.grab().toImage().convertToFormat(QImage::Format_RGB32);
    ASSERT_EQ(a.size(), b.size());
    EXPECT_LE(largestDifference(a, b), 8) << "cursor " << cursor;
    // The cursor is drawn (red) where it should be, and only with it shown.
    const int x = static_cast<int>(fast.xAxis->coordToPixel(20));
    const int y = fast.axisRect()->rect().center().y();
    EXPECT_EQ(qRed(b.pixel(x, y)) > 200 && qGreen(b.pixel(x, y)) < 80, cursor);
  }
}

// A legend entry keeps its text's pixels from one replot to the next: it is the same entry.
// (The entries used to be made anew before every replot, so the pixels were drawn every time.)
TEST(FastPlot, LegendEntriesLastFromReplotToReplot) {
  FastPlot plot;
  plot.legend->setVisible(true);
  for (const char* name : {"dirty", "writeback"}) addFastGraph(&plot)->setName(name);
  plot.resize(300, 200);
  plot.replot(QCustomPlot::rpImmediateRefresh);
  const QCPAbstractLegendItem* first = plot.legend->item(0);
  ASSERT_NE(dynamic_cast<const FastLegendItem*>(first), nullptr);
  plot.replot(QCustomPlot::rpImmediateRefresh);
  plot.replot(QCustomPlot::rpImmediateRefresh);
  EXPECT_EQ(plot.legend->item(0), first);
}

/// The pixels of `image` inside `rect` darker than half.
std::vector<std::vector<bool>> inked(const QImage& image, const QRect& rect) {
  std::vector<std::vector<bool>> out(static_cast<std::size_t>(rect.width()),
                                     std::vector<bool>(static_cast<std::size_t>(rect.height())));
  for (int x = 0; x < rect.width(); ++x)
    for (int y = 0; y < rect.height(); ++y)
      out[static_cast<std::size_t>(x)][static_cast<std::size_t>(y)] =
          qGray(image.pixel(rect.left() + x, rect.top() + y)) < 128;
  return out;
}

/// How many inked pixels of `a` have no inked pixel of `b` within `reach` pixels (either way).
int inkedApart(const std::vector<std::vector<bool>>& a, const std::vector<std::vector<bool>>& b,
               int reach) {
  const int w = static_cast<int>(a.size());
  const int h = w ? static_cast<int>(a[0].size()) : 0;
  int apart = 0;
  for (int x = 0; x < w; ++x)
    for (int y = 0; y < h; ++y) {
      if (!a[static_cast<std::size_t>(x)][static_cast<std::size_t>(y)]) continue;
      bool near = false;
      for (int dx = -reach; dx <= reach && !near; ++dx)
        for (int dy = -reach; dy <= reach && !near; ++dy) {
          const int u = x + dx, v = y + dy;
          near = u >= 0 && u < w && v >= 0 && v < h &&
                 b[static_cast<std::size_t>(u)][static_cast<std::size_t>(v)];
        }
      apart += !near;
    }
  return apart;
}

/// Plots a dense noisy series (6,000 points over about 400 px) with `pen`, as a FastGraph on a
/// FastPlot (drawn by FastGraph) or as a plain QCPGraph on a QCustomPlot (drawn by QPainter).
QImage screenOf(bool fast, const QPen& pen, bool antialiased, QRect* axisRect,
                QCPGraph::LineStyle style = QCPGraph::lsLine) {
  std::unique_ptr<QCustomPlot> plot(fast ? new FastPlot : new QCustomPlot);
  plot->setBackground(Qt::white);
  QCPGraph* graph = fast ? addFastGraph(plot.get()) : plot->addGraph();
  graph->setAdaptiveSampling(false);  // QPainter strokes every point
  QVector<double> keys, values;
  for (int i = 0; i < 6000; ++i) {
    keys << i * 0.01;
    values << std::sin(i * 0.002) * 40 + std::sin(i * 0.37) * (i % 900 < 450 ? 8 : 1);
  }
  graph->setData(keys, values, true);
  graph->setPen(pen);
  graph->setLineStyle(style);
  graph->setAntialiased(antialiased);
  plot->xAxis->setRange(0, 60);
  plot->yAxis->setRange(-60, 60);
  plot->resize(460, 300);
  plot->show();  // so that it is laid out at its size before the replot
  plot->replot(QCustomPlot::rpImmediateRefresh);
  *axisRect = plot->axisRect()->rect().adjusted(2, 2, -2, -2);
  return plot->grab().toImage().convertToFormat(QImage::Format_RGB32);
}

// On the screen FastGraph draws its line itself, a pixel column at a time; the picture must be
// QPainter's: in every column the line is inked from the same row to the same row, within a
// pixel, for a one-pixel antialiased pen, a five-pixel plain one (presenter mode), and a step
// line.
TEST(FastGraph, DrawsTheLineQPainterDraws) {
  struct Case {
    const char* name;
    QPen pen;
    bool antialiased;
    QCPGraph::LineStyle style;
    int near;  ///< pixels within which all but a few of the inked pixels agree
  };
  QPen thin(Qt::black, 1);
  thin.setCosmetic(true);
  QPen wide(Qt::black, 5);
  wide.setCosmetic(true);
  for (const Case& c : {Case{"1 px antialiased", thin, true, QCPGraph::lsLine, 1},
                        Case{"5 px", wide, false, QCPGraph::lsLine, 2},
                        Case{"1 px steps", thin, true, QCPGraph::lsStepLeft, 1}}) {
    QRect rect;
    const QImage painted = screenOf(false, c.pen, c.antialiased, &rect, c.style);
    const QImage ours = screenOf(true, c.pen, c.antialiased, &rect, c.style);
    const auto a = inked(painted, rect);
    const auto b = inked(ours, rect);
    int total = 0;
    for (const auto& column : a)
      total += static_cast<int>(std::count(column.begin(), column.end(), true));
    EXPECT_GT(total, rect.width() * 2) << c.name;
    // Every pixel either inks is within a pixel (two for the wide pen, whose joins at sharp
    // turns QPainter cuts square) of one the other inks, but for a few on the tips of the
    // sharpest spikes, and all within one more.
    EXPECT_LE(inkedApart(a, b, c.near) + inkedApart(b, a, c.near), total / 200) << c.name;
    EXPECT_EQ(inkedApart(a, b, c.near + 1) + inkedApart(b, a, c.near + 1), 0) << c.name;
  }
}

// Exports draw every point as QCustomPlot does: a FastGraph's PNG is a QCPGraph's.
TEST(FastGraph, ExportsAreQCustomPlotsOwnDrawing) {
  QPen pen(Qt::blue, 1, Qt::DashLine);
  QImage images[2];
  for (const bool fast : {false, true}) {
    std::unique_ptr<QCustomPlot> plot(fast ? new FastPlot : new QCustomPlot);
    QCPGraph* graph = fast ? addFastGraph(plot.get()) : plot->addGraph();
    QVector<double> keys, values;
    for (int i = 0; i < 3000; ++i) {
      keys << i * 0.02;
      values << std::sin(i * 0.37) * 40;
    }
    graph->setData(keys, values, true);
    graph->setPen(pen);
    plot->xAxis->setRange(0, 60);
    plot->yAxis->setRange(-50, 50);
    images[fast] = plot->toPixmap(400, 250).toImage();
  }
  EXPECT_EQ(images[0], images[1]);
}

TEST(FastPlot, LegendEntriesKeepTheirTextMarginsAndOrder) {
  FastPlot plot;
  plot.legend->setVisible(true);
  for (const char* name : {"dirty", "writeback", "limit"}) addFastGraph(&plot)->setName(name);
  plot.legend->item(1)->setMargins(QMargins(0, 0, 0, 3));
  plot.resize(300, 200);
  plot.replot(QCustomPlot::rpImmediateRefresh);
  ASSERT_EQ(plot.legend->itemCount(), 3);
  const char* names[] = {"dirty", "writeback", "limit"};
  for (int i = 0; i < 3; ++i) {
    auto* item = dynamic_cast<FastLegendItem*>(plot.legend->item(i));
    ASSERT_NE(item, nullptr) << i;
    EXPECT_EQ(item->plottable()->name(), QString::fromLatin1(names[i]));
  }
  EXPECT_EQ(plot.legend->item(1)->margins(), QMargins(0, 0, 0, 3));
  // QCustomPlot still finds the entry of its graph.
  EXPECT_TRUE(plot.graph(1)->removeFromLegend());
  EXPECT_EQ(plot.legend->itemCount(), 2);
}

}  // namespace
}  // namespace throttlelab::ui
