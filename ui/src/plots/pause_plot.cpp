// SPDX-License-Identifier: GPL-3.0-or-later
#include "pause_plot.h"

#include <algorithm>
#include <vector>

#include "fast_graph.h"
#include "qcp.h"
#include "sample_fields.h"
#include "sample_history.h"
#include "task_trace_history.h"

namespace throttlelab::ui {

using engine::Sample;

namespace {
// No pause started in the interval: leave a gap rather than draw a zero.
double pauseOrGap(const Sample& s, double v) {
  return s.pauses > 0 ? v : kNoValue;
}

// The longest pauses of an interval that stand out from the crowd. Drawing every top-4
// entry would repeat the band's upper edge (10,000 writers all at max_pause) and cost a
// circle per point; the outliers are the writers a user wants to find.
void appendOutliers(const Sample& s, QVector<QCPGraphData>& out) {
  const double t = engine::toSeconds(s.time);
  for (const auto& p : s.topPauses)
    if (p.task >= 0 && p.pauseMs > 0 && p.pauseMs > 1.5 * s.pauseMsP50)
      out.append(QCPGraphData(t, p.pauseMs));
}
}  // namespace

PausePlot::PausePlot(QWidget* parentWidget) : TimePlot(PlotId::Pauses, parentWidget) {
  m_maxPause = addSeries(
      {.name = "max_pause",
       .unit = "ms",
       .value = [](const Sample& s,
                   const DisplayUnits&) { return s.maxPauseMs > 0 ? s.maxPauseMs : kNoValue; },
       .colour = SeriesColour::Vermillion,
       .style = Qt::DashLine,
       .width = 1.5,
       .step = true});
  m_max = addSeries(
      {.name = "min–max band",
       .unit = "ms",
       .value = [](const Sample& s, const DisplayUnits&) { return pauseOrGap(s, s.pauseMsMax); },
       .colour = SeriesColour::Grey});
  m_median = addSeries(
      {.name = "median",
       .unit = "ms",
       .value = [](const Sample& s, const DisplayUnits&) { return pauseOrGap(s, s.pauseMsP50); },
       .colour = SeriesColour::Blue,
       .width = 1.5});
  m_min = addSeries(
      {.name = "min",
       .unit = "ms",
       .value = [](const Sample& s, const DisplayUnits&) { return pauseOrGap(s, s.pauseMsMin); },
       .colour = SeriesColour::Grey});
  m_plot->addLayer(QStringLiteral("highlight"), m_plot->layer("main"), QCustomPlot::limAbove);
  m_top = addFastGraph(m_plot);
  m_top->setName(QStringLiteral("outliers (top 4)"));
  m_top->setLineStyle(QCPGraph::lsNone);
  m_top->setAdaptiveSampling(true);
  m_summary = m_plot->addGraph();
  m_summary->removeFromLegend();
  setManyTasks(true);
  setManyTasks(false);
  updateAxisTitles();
}

void PausePlot::updateAxisTitles() {
  m_plot->yAxis->setLabel(QStringLiteral("pause (ms)"));
}

void PausePlot::setManyTasks(bool many) {
  if (many == m_many) return;
  m_many = many;
  for (int i : {m_min, m_median, m_max}) setSeriesShown(i, many);
  // The band is one legend entry ("min–max band"); its lower edge needs none of its own.
  if (many) seriesGraph(m_min)->removeFromLegend();
  m_top->setVisible(many);
  if (many)
    m_top->addToLegend();
  else
    m_top->removeFromLegend();
  restyleTasks();
  setLegendColumns();
}

void PausePlot::appendSamples(const SampleBuffer& samples) {
  TimePlot::appendSamples(samples);
  if (samples.empty()) return;
  setManyTasks(samples.back().tasks > kMaxCurves);
  QVector<QCPGraphData> top;
  for (const auto& s : samples) appendOutliers(s, top);
  m_top->data()->add(top, true);
}

void PausePlot::appendTaskSamples(const TaskSampleBuffer& samples) {
  if (samples.empty()) return;
  std::map<int, QVector<QCPGraphData>> perTask;
  for (const auto& s : samples)
    if (s.pauseMs > 0) perTask[s.task].append(QCPGraphData(engine::toSeconds(s.time), s.pauseMs));
  for (auto& [task, points] : perTask) {
    QCPGraph* g = ensureTaskGraph(task);
    if (g) g->data()->add(points, true);
  }
  markDirty();
}

QCPGraph* PausePlot::ensureTaskGraph(int task) {
  if (auto it = m_taskGraphs.find(task); it != m_taskGraphs.end()) return it->second;
  if (task >= kMaxCurves && task != m_selected) return nullptr;
  auto* g = addFastGraph(m_plot);
  g->setAdaptiveSampling(true);
  g->setLineStyle(QCPGraph::lsLine);
  g->setName(taskName(task));
  m_taskGraphs.emplace(task, g);
  restyleTasks();
  setLegendColumns();
  return g;
}

int PausePlot::taskAtPixel(QPoint pos) const {
  // The nearest visible task curve within a few pixels.
  int best = -1;
  double bestDistance = 6;
  for (const auto& [task, g] : m_taskGraphs) {
    if (!g->visible()) continue;
    const double d = g->selectTest(QPointF(pos), false);
    if (d >= 0 && d < bestDistance) {
      bestDistance = d;
      best = task;
    }
  }
  return best;
}

QCPGraph* PausePlot::taskGraph(int task) const {
  auto it = m_taskGraphs.find(task);
  return it == m_taskGraphs.end() ? nullptr : it->second;
}

QString PausePlot::taskName(int task) const {
  auto it = m_infos.find(task);
  if (it == m_infos.end()) return QStringLiteral("task %1").arg(task);
  return QStringLiteral("%1 %2").arg(QString::fromStdString(it->second.name)).arg(it->second.pid);
}

void PausePlot::setTaskInfos(const std::map<int, engine::TaskInfo>& infos) {
  m_infos = infos;
  for (auto& [task, g] : m_taskGraphs) g->setName(taskName(task));
  restyleTasks();
}

void PausePlot::setSelectedTask(int task) {
  if (task == m_selected) return;
  const int previous = m_selected;
  m_selected = task;
  // A task beyond the first 16 loses its curve when deselected.
  if (previous >= kMaxCurves) {
    if (auto it = m_taskGraphs.find(previous); it != m_taskGraphs.end()) {
      m_plot->removeGraph(it->second);
      m_taskGraphs.erase(it);
    }
  }
  restyleTasks();
  setLegendColumns();
}

void PausePlot::restyleTasks() {
  const bool anySelected = m_selected >= 0;
  // Curves appear as their tasks first pause; the legend lists them by pid, as ps does.
  std::vector<std::pair<std::int64_t, int>> byPid;
  for (const auto& [task, g] : m_taskGraphs) {
    const auto info = m_infos.find(task);
    byPid.emplace_back(info == m_infos.end() ? std::int64_t{task} : info->second.pid, task);
    g->removeFromLegend();
  }
  std::sort(byPid.begin(), byPid.end());
  // The curves drawn of tasks not selected: in one legend entry when asked to summarise.
  std::vector<std::int64_t> merged;
  if (!m_many)
    for (const auto& [pid, task] : byPid)
      if (task != m_selected) merged.push_back(pid);
  m_summarised = m_summarise && merged.size() >= 2;
  int order = 0;
  for (const auto& [pid, task] : byPid) {
    QCPGraph* g = m_taskGraphs.at(task);
    const bool selected = task == m_selected;
    const bool shown = selected || !m_many;
    g->setVisible(shown);
    if (shown && (selected || !m_summarised)) g->addToLegend();
    QColor c = m_theme.taskColour(order);
    double width = 1;
    if (selected) {
      width = 3;
    } else if (anySelected) {
      c.setAlpha(70);  // dim the others so the selected writer stands out
    }
    QPen pen(c, width * m_theme.penScale, m_theme.taskStyle(order));
    pen.setCosmetic(true);
    g->setPen(pen);
    g->setScatterStyle(selected ? QCPScatterStyle(QCPScatterStyle::ssDisc, c, 6.0)
                                : QCPScatterStyle(QCPScatterStyle::ssNone));
    g->setLayer(selected ? QStringLiteral("highlight") : QStringLiteral("main"));
    ++order;
  }
  m_summary->removeFromLegend();
  if (m_summarised) {
    const QString tasks = m_selected >= 0 ? QStringLiteral("%1 other tasks, pid %2–%3")
                                          : QStringLiteral("%1 tasks, pid %2–%3");
    m_summary->setName(tasks.arg(merged.size()).arg(merged.front()).arg(merged.back()));
    // A plain line in the text's colour: the entry stands for curves of every colour.
    QPen pen(m_theme.foreground, m_theme.penScale, Qt::SolidLine);
    pen.setCosmetic(true);
    m_summary->setPen(pen);
    m_summary->addToLegend();
  }
  markDirty();
}

bool PausePlot::summariseLegend(bool on) {
  if (on == m_summarise) return m_summarised;
  m_summarise = on;
  restyleTasks();
  return m_summarised;
}

void PausePlot::applyTheme(const Theme& theme) {
  TimePlot::applyTheme(theme);
  // The band between the shortest and longest pause of each interval.
  QColor fill = theme.colour(SeriesColour::Grey);
  fill.setAlpha(60);
  seriesGraph(m_max)->setBrush(fill);
  seriesGraph(m_max)->setChannelFillGraph(seriesGraph(m_min));
  const QColor topColour = theme.colour(SeriesColour::Orange);
  m_top->setPen(QPen(topColour));
  m_top->setScatterStyle(
      QCPScatterStyle(QCPScatterStyle::ssDisc, topColour, theme.presenter ? 7.0 : 4.0));
  restyleTasks();
}

void PausePlot::rebuild(const SampleHistory& history, const TaskTraceHistory& tasks) {
  TimePlot::rebuild(history, tasks);
  QVector<QCPGraphData> top;
  for (const auto& s : history) appendOutliers(s, top);
  m_top->data()->set(top, true);
  for (auto& [task, g] : m_taskGraphs) g->data()->clear();
  for (int task : tasks.tasks()) {
    QCPGraph* g = ensureTaskGraph(task);
    const auto* pts = tasks.points(task);
    if (!g || !pts) continue;
    QVector<QCPGraphData> points;
    for (const auto& p : *pts)
      if (p.pauseMs > 0) points.append(QCPGraphData(engine::toSeconds(p.time), p.pauseMs));
    g->data()->set(points, true);
  }
  if (!history.empty()) setManyTasks(history.back().tasks > kMaxCurves);
}

void PausePlot::clearData() {
  TimePlot::clearData();
  for (auto& [task, g] : m_taskGraphs) m_plot->removeGraph(g);
  m_taskGraphs.clear();
  m_infos.clear();
  // The selection is the controller's; it survives a new run's first frame.
}

QStringList PausePlot::extraReadout(double timeS, const Sample& nearest,
                                    const TaskTraceHistory* tasks) const {
  QStringList lines;
  if (m_many) {
    for (const auto& p : nearest.topPauses) {
      if (p.task < 0 || !(p.pauseMs > 0)) continue;
      lines << QStringLiteral("%1: %2 ms").arg(taskName(p.task), formatValue(p.pauseMs));
    }
  }
  if (!tasks) return lines;
  int shown = 0;
  for (const auto& [task, g] : m_taskGraphs) {
    if (!g->visible() || shown >= 8) continue;
    const TaskPoint* p = tasks->pointNear(task, timeS, 0.3);
    lines << QStringLiteral("%1: %2").arg(
        taskName(task), p && p->pauseMs > 0 ? formatValue(p->pauseMs) + " ms" : "no pause");
    ++shown;
  }
  return lines;
}

}  // namespace throttlelab::ui
