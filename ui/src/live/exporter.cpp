// SPDX-License-Identifier: GPL-3.0-or-later
#include "exporter.h"

#include <QBuffer>
#include <QFontMetrics>
#include <QImageWriter>
#include <QPageSize>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QSvgGenerator>
#include <functional>
#include <sstream>

#include "dashboard.h"
#include "qcp.h"
#include "sample_history.h"
#include "save_file.h"
#include "task_trace_history.h"
#include "throttlelab/engine/events.h"

namespace throttlelab::ui {

namespace {
constexpr int kHeaderHeight = 26;
const QSize kDefaultPlotSize(1200, 700);

QString finish(SaveFile& file) {
  if (!file.commit())
    return QStringLiteral("Cannot write %1: %2.").arg(file.path(), file.errorString());
  return {};
}
}  // namespace

Exporter::Exporter(const Dashboard& dashboard, const SampleHistory& history,
                   const engine::Scenario& scenario)
    : Exporter(View{.frame = &dashboard,
                    .plot = [&dashboard](PlotId id) { return dashboard.plotWidget(id); },
                    .visible = dashboard.visiblePlots(),
                    .theme = dashboard.theme(),
                    .events = dashboard.events(),
                    .timeRange = dashboard.timeRange()},
               history, scenario) {}

Exporter::Exporter(View view, const SampleHistory& history, const engine::Scenario& scenario)
    : m_view(std::move(view)),
      m_history(history),
      m_provenance(provenanceFor(scenario)),
      m_devices(std::max<std::size_t>(1, scenario.devices.size())),
      m_cgroups(engine::csvCgroupNames(scenario)) {}

QString Exporter::softwareName() {
  return QStringLiteral("ThrottleLab %1").arg(QStringLiteral(THROTTLELAB_VERSION));
}

engine::Provenance Exporter::provenanceFor(const engine::Scenario& scenario) {
  // The engine's, as the headless CSV has it (a QJsonDocument would sort the keys).
  return engine::provenanceOf(scenario);
}

QString Exporter::title() const {
  const QString title = QStringLiteral("%1 — scenario \"%2\", seed %3")
                            .arg(softwareName(), QString::fromStdString(m_provenance.scenarioName))
                            .arg(m_provenance.seed);
  return m_view.caption.isEmpty() ? title : title + QStringLiteral(" — ") + m_view.caption;
}

QString Exporter::description() const {
  return QStringLiteral("Scenario: %1\nSeed: %2\nPolicy: %3\nSoftware: %4\nScenarioJSON: %5")
      .arg(QString::fromStdString(m_provenance.scenarioName))
      .arg(m_provenance.seed)
      .arg(QString::fromStdString(m_provenance.policy), softwareName(),
           QString::fromStdString(m_provenance.scenarioJson));
}

Exporter::Layout Exporter::layout(std::optional<PlotId> plot) const {
  Layout l;
  if (plot) {
    QCustomPlot* p = m_view.plot(*plot);
    QSize size = p->size();
    if (size.width() < 200 || size.height() < 120) size = kDefaultPlotSize;
    l.size = size;
    l.plots.push_back({p, QRect(QPoint(0, 0), size)});
    return l;
  }
  // The dashboard as laid out on screen, below a caption line.
  l.headerHeight = kHeaderHeight;
  QRect bounds;
  for (PlotId id : m_view.visible) {
    QCustomPlot* p = m_view.plot(id);
    const QRect r(p->mapTo(m_view.frame, QPoint(0, 0)), p->size());
    l.plots.push_back({p, r});
    bounds = bounds.united(r);
  }
  if (bounds.width() < 400 || bounds.height() < 300) {
    // Not laid out (never shown): stack the plots at a readable default size.
    l.plots.clear();
    int y = 0;
    for (PlotId id : m_view.visible) {
      l.plots.push_back({m_view.plot(id), QRect(0, y, 1000, 320)});
      y += 320;
    }
    bounds = QRect(0, 0, 1000, std::max(y, 1));
  }
  for (auto& placed : l.plots) placed.rect.translate(-bounds.topLeft() + QPoint(0, l.headerHeight));
  l.size = QSize(bounds.width(), bounds.height() + l.headerHeight);
  return l;
}

void Exporter::paintHeader(QPainter& painter, const Layout& l) const {
  if (l.headerHeight == 0) return;
  const Theme& theme = m_view.theme;
  QFont f = theme.font;
  f.setBold(true);
  painter.setFont(f);
  painter.setPen(theme.foreground);
  const double t = m_history.empty() ? 0 : m_history.lastTimeS();
  const QString text = QStringLiteral("%1 · policy %2 · t = %3 s simulated")
                           .arg(title(), QString::fromStdString(m_provenance.policy))
                           .arg(t, 0, 'f', 1);
  // Elided rather than cut off mid-word where the plots are narrower than the line.
  const int width = l.size.width() - 16;
  painter.drawText(QRect(8, 0, width, l.headerHeight), Qt::AlignVCenter | Qt::AlignLeft,
                   QFontMetrics(f).elidedText(text, Qt::ElideRight, width));
}

QImage Exporter::renderImage(std::optional<PlotId> plot, double scale) const {
  const Layout l = layout(plot);
  QImage image(l.size * scale, QImage::Format_ARGB32_Premultiplied);
  image.fill(m_view.theme.background);
  {
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    painter.scale(scale, scale);
    paintHeader(painter, l);
    painter.resetTransform();
    for (const auto& placed : l.plots) {
      // toPixmap re-renders at the scale (the same path savePng takes), so 2× is sharp.
      const QPixmap pixmap =
          placed.plot->toPixmap(placed.rect.width(), placed.rect.height(), scale);
      painter.drawPixmap(QPointF(placed.rect.topLeft()) * scale, pixmap);
    }
  }
  image.setText(QStringLiteral("Title"), title());
  image.setText(QStringLiteral("Scenario"), QString::fromStdString(m_provenance.scenarioName));
  image.setText(QStringLiteral("Seed"), QString::number(m_provenance.seed));
  image.setText(QStringLiteral("Policy"), QString::fromStdString(m_provenance.policy));
  image.setText(QStringLiteral("Software"), softwareName());
  image.setText(QStringLiteral("ScenarioJSON"), QString::fromStdString(m_provenance.scenarioJson));
  return image;
}

QString Exporter::exportPng(const QString& path, std::optional<PlotId> plot, double scale) const {
  const QImage image = renderImage(plot, scale);
  SaveFile file(path);
  if (!file.open(QIODevice::WriteOnly))
    return QStringLiteral("Cannot write %1: %2.").arg(path, file.errorString());
  QImageWriter writer(&file, "png");
  if (!writer.write(image)) {
    file.cancelWriting();
    return QStringLiteral("Cannot write %1: %2.").arg(path, writer.errorString());
  }
  return finish(file);
}

namespace {
/// Renders with a QCPPainter into an SVG document in memory.
QByteArray renderSvg(QSize size, const std::function<void(QCPPainter&)>& paint) {
  QBuffer buffer;
  buffer.open(QIODevice::WriteOnly);
  QSvgGenerator generator;
  generator.setOutputDevice(&buffer);
  generator.setSize(size);
  generator.setViewBox(QRect(QPoint(0, 0), size));
  QCPPainter painter;
  if (!painter.begin(&generator)) return {};
  painter.setMode(QCPPainter::pmVectorized);
  painter.setMode(QCPPainter::pmNoCaching);
  paint(painter);
  painter.end();
  return buffer.data();
}

/// The drawing inside a generated document: no prolog, root element, title or description.
QByteArray svgBody(const QByteArray& document) {
  const auto root = document.indexOf("<svg");
  const auto start = document.indexOf('>', root) + 1;
  const auto end = document.lastIndexOf("</svg>");
  if (root < 0 || start <= 0 || end < start) return {};
  QString body = QString::fromUtf8(document.mid(start, end - start));
  static const QRegularExpression meta(QStringLiteral("<title>.*?</title>|<desc>.*?</desc>"),
                                       QRegularExpression::DotMatchesEverythingOption);
  body.remove(meta);
  return body.toUtf8();
}

/// Hides what a plot draws inside its axis rect (graphs, and the items clipped to the rect)
/// for the frame pass of an SVG export, restoring it afterwards. Nothing that takes part in
/// the layout is touched, so both passes lay the plot out identically.
class FramePass {
 public:
  explicit FramePass(QCustomPlot* plot) {
    for (int i = 0; i < plot->plottableCount(); ++i) hide(plot->plottable(i));
    for (int i = 0; i < plot->itemCount(); ++i)
      if (plot->item(i)->clipToAxisRect()) hide(plot->item(i));
  }
  ~FramePass() {
    for (auto [layerable, visible] : m_hidden) layerable->setVisible(visible);
  }
  FramePass(const FramePass&) = delete;
  FramePass& operator=(const FramePass&) = delete;

 private:
  void hide(QCPLayerable* layerable) {
    m_hidden.emplace_back(layerable, layerable->visible());
    layerable->setVisible(false);
  }
  std::vector<std::pair<QCPLayerable*, bool>> m_hidden;
};
}  // namespace

QString Exporter::exportSvg(const QString& path, std::optional<PlotId> plot) const {
  // QSvgGenerator (Qt 6.4) drops clip regions, so data beyond an axis range would be drawn
  // across the neighbouring plots. Each plot is therefore drawn twice: the frame without
  // what belongs inside the axis rect, then the whole plot clipped to its axis rect with an
  // SVG clipPath (the parts of the frame inside the rect are drawn again, identically).
  const Layout l = layout(plot);
  const QColor background = m_view.theme.background;
  QByteArray out;
  out += "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n";
  out += QStringLiteral(
             "<svg xmlns=\"http://www.w3.org/2000/svg\" "
             "xmlns:xlink=\"http://www.w3.org/1999/xlink\" version=\"1.1\" "
             "width=\"%1\" height=\"%2\" viewBox=\"0 0 %1 %2\">\n")
             .arg(l.size.width())
             .arg(l.size.height())
             .toUtf8();
  out += "<title>" + title().toHtmlEscaped().toUtf8() + "</title>\n";
  out += "<desc>" + description().toHtmlEscaped().toUtf8() + "</desc>\n";
  out += QStringLiteral("<rect x=\"0\" y=\"0\" width=\"%1\" height=\"%2\" fill=\"%3\"/>\n")
             .arg(l.size.width())
             .arg(l.size.height())
             .arg(background.name())
             .toUtf8();
  if (l.headerHeight > 0)
    out += svgBody(renderSvg(QSize(l.size.width(), l.headerHeight),
                             [&](QCPPainter& p) { paintHeader(p, l); }));
  int index = 0;
  for (const auto& placed : l.plots) {
    const QSize size = placed.rect.size();
    const auto draw = [&](QCPPainter& p) {
      placed.plot->toPainter(&p, size.width(), size.height());
    };
    QByteArray frame;
    {
      const FramePass pass(placed.plot);
      frame = svgBody(renderSvg(size, draw));
    }
    const QByteArray data = svgBody(renderSvg(size, draw));
    placed.plot->replot(QCustomPlot::rpQueuedReplot);  // the screen shows the restored state
    // The axis rect as laid out for this size (toPainter re-lays the plot out at it).
    const QRect axes = placed.plot->axisRect()->rect();
    out += QStringLiteral("<g transform=\"translate(%1,%2)\">\n")
               .arg(placed.rect.x())
               .arg(placed.rect.y())
               .toUtf8();
    out += frame;
    out += QStringLiteral(
               "<defs><clipPath id=\"axes%1\"><rect x=\"%2\" y=\"%3\" width=\"%4\" "
               "height=\"%5\"/></clipPath></defs>\n<g clip-path=\"url(#axes%1)\">\n")
               .arg(index++)
               .arg(axes.x())
               .arg(axes.y())
               .arg(axes.width())
               .arg(axes.height())
               .toUtf8();
    out += data;
    out += "</g>\n</g>\n";
  }
  out += "</svg>\n";

  SaveFile file(path);
  if (!file.open(QIODevice::WriteOnly))
    return QStringLiteral("Cannot write %1: %2.").arg(path, file.errorString());
  if (file.write(out) != out.size()) {
    file.cancelWriting();
    return QStringLiteral("Cannot write %1: %2.").arg(path, file.errorString());
  }
  return finish(file);
}

QString Exporter::exportPdf(const QString& path, std::optional<PlotId> plot) const {
  const Layout l = layout(plot);
  SaveFile file(path);
  if (!file.open(QIODevice::WriteOnly))
    return QStringLiteral("Cannot write %1: %2.").arg(path, file.errorString());
  {
    QPdfWriter writer(&file);
    writer.setCreator(softwareName());
    writer.setTitle(title());
    writer.setResolution(72);  // one layout pixel = one point
    writer.setPageSize(
        QPageSize(QSizeF(l.size), QPageSize::Point, QString(), QPageSize::ExactMatch));
    writer.setPageMargins(QMarginsF(0, 0, 0, 0));
    QCPPainter painter;
    if (!painter.begin(&writer)) {
      file.cancelWriting();
      return QStringLiteral("Cannot draw the PDF for %1.").arg(path);
    }
    painter.setMode(QCPPainter::pmVectorized);
    painter.setMode(QCPPainter::pmNoCaching);
    painter.fillRect(QRect(QPoint(0, 0), l.size), m_view.theme.background);
    paintHeader(painter, l);
    for (const auto& placed : l.plots) {
      painter.save();
      painter.translate(placed.rect.topLeft());
      placed.plot->toPainter(&painter, placed.rect.width(), placed.rect.height());
      painter.restore();
    }
    painter.end();
  }
  return finish(file);
}

std::string Exporter::csvText(CsvRange range) const {
  std::ostringstream out;
  const auto& events = m_view.events;
  writeProvenance(out);
  out << m_view.csvLines;
  engine::writeCsvEvents(out, events);
  // A run whose policy changed says which policy each row ran under, in a last column.
  const bool byPolicy = engine::policyChanged(events);
  // Under a policy without position control, that control's fields are empty.
  constexpr auto kPosition = engine::PositionColumns::EmptyWithout;
  const std::string initial = engine::initialPolicy(events, m_provenance.policy);
  std::ostringstream header;
  engine::writeSampleCsvHeader(header, m_devices, m_cgroups);
  std::string text = header.str();
  if (byPolicy && !text.empty() && text.back() == '\n') text.insert(text.size() - 1, ",policy");
  out << text;
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  if (range == CsvRange::VisibleRange) std::tie(lo, hi) = m_view.timeRange;
  std::ostringstream row;
  for (std::size_t i = m_history.lowerBound(lo); i < m_history.size(); ++i) {
    const auto& s = m_history[i];
    if (engine::toSeconds(s.time) > hi) break;
    if (!byPolicy) {
      engine::writeSampleCsvRow(out, s, m_devices, m_cgroups.size(), kPosition);
      continue;
    }
    row.str(std::string());
    engine::writeSampleCsvRow(row, s, m_devices, m_cgroups.size(), kPosition);
    std::string line = row.str();
    if (!line.empty() && line.back() == '\n') line.pop_back();
    out << line << ',' << engine::policyAt(events, initial, engine::toSeconds(s.time)) << '\n';
  }
  return out.str();
}

void Exporter::writeProvenance(std::ostream& out) const {
  // A run whose policy changed names every policy it ran under, not the one it has now.
  engine::Provenance p = m_provenance;
  p.policy = engine::policyHistory(m_view.events, p.policy);
  engine::writeCsvProvenance(out, p);
}

std::string Exporter::taskCsvText(const TaskTraceHistory& tasks,
                                  const std::map<int, engine::TaskInfo>& infos) const {
  std::ostringstream out;
  writeProvenance(out);
  engine::writeCsvEvents(out, m_view.events);
  // Rows in time order, the tasks in table order at each time, as headless --task-csv has them.
  std::vector<const TaskPoint*> rows;
  const std::vector<int> kept = tasks.tasks();
  for (const int task : kept)
    if (const auto* points = tasks.points(task); points && infos.count(task))
      for (const TaskPoint& p : *points) rows.push_back(&p);
  std::stable_sort(rows.begin(), rows.end(), [](const TaskPoint* a, const TaskPoint* b) {
    return a->time != b->time ? a->time < b->time : a->task < b->task;
  });
  out << "# tasks: the " << kept.size()
      << " the window draws (the first 16 and the selection); headless --task-csv has every "
         "task\n";
  engine::writeTaskCsvHeader(out);
  for (const TaskPoint* p : rows) engine::writeTaskCsvRow(out, *p, infos.at(p->task));
  return out.str();
}

QString Exporter::exportTaskCsv(const QString& path, const TaskTraceHistory& tasks,
                                const std::map<int, engine::TaskInfo>& infos) const {
  return writeText(path, taskCsvText(tasks, infos));
}

QString Exporter::exportCsv(const QString& path, CsvRange range) const {
  return writeText(path, csvText(range));
}

QString Exporter::writeText(const QString& path, const std::string& text) const {
  SaveFile file(path);
  if (!file.open(QIODevice::WriteOnly))
    return QStringLiteral("Cannot write %1: %2.").arg(path, file.errorString());
  if (file.write(text.data(), static_cast<qint64>(text.size())) !=
      static_cast<qint64>(text.size())) {
    file.cancelWriting();
    return QStringLiteral("Cannot write %1: %2.").arg(path, file.errorString());
  }
  return finish(file);
}

QString Exporter::exportAs(const QString& path, const ExportChoice& choice) const {
  switch (choice.format) {
    case ExportFormat::Png1x:
      return exportPng(path, choice.plot, 1);
    case ExportFormat::Png2x:
      return exportPng(path, choice.plot, 2);
    case ExportFormat::Svg:
      return exportSvg(path, choice.plot);
    case ExportFormat::Pdf:
      return exportPdf(path, choice.plot);
    case ExportFormat::CsvAll:
      return exportCsv(path, CsvRange::EverythingKept);
    case ExportFormat::CsvVisible:
      return exportCsv(path, CsvRange::VisibleRange);
    case ExportFormat::TaskCsv:  // needs the task history: MainWindow calls exportTaskCsv()
      break;
  }
  return QStringLiteral("Unknown export format.");
}

}  // namespace throttlelab::ui
