// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Figures and data out of the window: one plot or the whole dashboard as PNG (1× or 2×),
/// SVG or PDF, the samples as CSV in the headless --csv columns, and the drawn tasks' points in
/// the headless --task-csv columns. Every file carries the scenario name, seed and software
/// version, and is written through QSaveFile.
#include <QImage>
#include <QString>
#include <functional>
#include <iosfwd>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "export_dialog.h"
#include "plot_id.h"
#include "theme.h"
#include "throttlelab/engine/events.h"
#include "throttlelab/engine/output.h"

class QCustomPlot;
class QPainter;

namespace throttlelab::ui {

class Dashboard;
class SampleHistory;
class TaskTraceHistory;

enum class CsvRange { EverythingKept, VisibleRange };

class Exporter {
 public:
  /// What is exported: plots laid out in a frame widget, and what the files say about them.
  struct View {
    const QWidget* frame = nullptr;
    std::function<QCustomPlot*(PlotId)> plot;  ///< the plot shown for an id
    std::vector<PlotId> visible;               ///< in layout order
    Theme theme;
    std::vector<engine::RunEvent> events;  ///< the CSV's `# event:` lines
    std::pair<double, double> timeRange;   ///< shown (CsvRange::VisibleRange)
    QString caption;       ///< added to the title and header line ("original and branch: …")
    std::string csvLines;  ///< CSV header lines after the provenance ("# branch_of: …")
  };
  Exporter(const Dashboard& dashboard, const SampleHistory& history,
           const engine::Scenario& scenario);
  Exporter(View view, const SampleHistory& history, const engine::Scenario& scenario);

  /// Each returns an error message, or an empty string on success.
  /// `plot` = nullopt exports the whole dashboard.
  QString exportPng(const QString& path, std::optional<PlotId> plot, double scale = 1) const;
  QString exportSvg(const QString& path, std::optional<PlotId> plot) const;
  QString exportPdf(const QString& path, std::optional<PlotId> plot) const;
  QString exportCsv(const QString& path, CsvRange range) const;
  /// The per-task rows the window keeps (the tasks it draws: the first 16 and the selection),
  /// in the columns of the headless --task-csv, in time order.
  QString exportTaskCsv(const QString& path, const TaskTraceHistory& tasks,
                        const std::map<int, engine::TaskInfo>& infos) const;
  /// The export the dialog's choice names.
  QString exportAs(const QString& path, const ExportChoice& choice) const;

  /// The picture a PNG export writes, with its provenance text keys set.
  QImage renderImage(std::optional<PlotId> plot, double scale) const;
  /// The CSV text an export writes.
  std::string csvText(CsvRange range) const;
  /// The text exportTaskCsv writes.
  std::string taskCsvText(const TaskTraceHistory& tasks,
                          const std::map<int, engine::TaskInfo>& infos) const;

  static engine::Provenance provenanceFor(const engine::Scenario& scenario);
  static QString softwareName();

 private:
  struct Placed {
    QCustomPlot* plot;
    QRect rect;  ///< in export coordinates (1×)
  };
  struct Layout {
    QSize size;
    int headerHeight = 0;
    std::vector<Placed> plots;
  };
  Layout layout(std::optional<PlotId> plot) const;
  void paintHeader(QPainter& painter, const Layout& l) const;
  QString title() const;
  QString writeText(const QString& path, const std::string& text) const;
  /// The CSVs' `#` provenance lines.
  void writeProvenance(std::ostream& out) const;
  QString description() const;

  View m_view;
  const SampleHistory& m_history;
  engine::Provenance m_provenance;
  std::size_t m_devices;
  std::vector<std::string> m_cgroups;  ///< the scenario's memory cgroups: their CSV columns
};

}  // namespace throttlelab::ui
