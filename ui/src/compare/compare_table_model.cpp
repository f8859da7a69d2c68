// SPDX-License-Identifier: GPL-3.0-or-later
#include "compare_table_model.h"

#include <QColor>
#include <cmath>
#include <string_view>

#include "series_spec.h"
#include "throttlelab/engine/compare.h"
#include "throttlelab/engine/statistics.h"

namespace throttlelab::ui {

namespace {
/// The comparison's metrics the table shows, in its order.
constexpr std::string_view kKeys[] = {"system_pct",     "write_kbps",   "avgrq_sz_sectors",
                                      "seeks_per_s",    "pause_ms_p50", "pause_ms_p99",
                                      "dirty_pages_p50"};

QString fromView(std::string_view v) {
  return QString::fromUtf8(v.data(), static_cast<qsizetype>(v.size()));
}

/// Mean avgWriteKBps over the writers that have started.
double writerKBps(const engine::Summary& s) {
  double sum = 0;
  int n = 0;
  for (const auto& t : s.tasks) {
    if (t.info.kind != engine::TaskKind::Writer || t.state == engine::TaskState::NotStarted)
      continue;
    sum += t.avgWriteKBps;
    ++n;
  }
  return n > 0 ? sum / n : 0;
}
}  // namespace

namespace {
ColumnTableModel<DeltaRow>::Column run(double DeltaRow::*field) {
  return {.shown = [field](const DeltaRow& r) { return QVariant(formatValue(r.*field)); },
          .raw = [field](const DeltaRow& r) { return QVariant(r.*field); }};
}
}  // namespace

// The run columns' headers are set by setRunNames.
CompareTableModel::CompareTableModel(QObject* parent)
    : ColumnTableModel(
          {
              {.header = tr("metric"),
               .shown =
                   [](const DeltaRow& r) {
                     return QVariant(r.unit.isEmpty() || r.unit == QLatin1String("count")
                                         ? r.label
                                         : QStringLiteral("%1 (%2)").arg(r.label, r.unit));
                   },
               .alignLeft = true},
              run(&DeltaRow::a),
              run(&DeltaRow::b),
              {.header = tr("Δ % (B vs A)"),
               .shown =
                   [](const DeltaRow& r) { return QVariant(formatPercentChange(r.deltaPct, 1)); },
               .raw =
                   [](const DeltaRow& r) {
                     return r.deltaPct ? QVariant(*r.deltaPct) : QVariant();
                   }},
          },
          kNoSortRole, parent) {
  setRunNames(QStringLiteral("A"), QStringLiteral("B"));
}

std::optional<double> CompareTableModel::deltaPct(double a, double b) {
  return engine::percentChange(b, a);
}

std::vector<DeltaRow> CompareTableModel::deltaRows(const engine::Summary& a,
                                                   const engine::Summary& b) {
  std::vector<DeltaRow> rows;
  for (std::string_view key : kKeys) {
    for (const auto& m : engine::comparisonMetrics()) {
      if (m.key != key) continue;
      DeltaRow r{.key = fromView(m.key),
                 .label = fromView(m.label),
                 .unit = fromView(m.unit),
                 .a = m.read(a),
                 .b = m.read(b)};
      r.deltaPct = deltaPct(r.a, r.b);
      rows.push_back(std::move(r));
    }
  }
  DeltaRow w{.key = QStringLiteral("writer_kbps"),
             .label = tr("throughput per writer"),
             .unit = QStringLiteral("KiB/s"),
             .a = writerKBps(a),
             .b = writerKBps(b)};
  w.deltaPct = deltaPct(w.a, w.b);
  rows.push_back(std::move(w));
  return rows;
}

void CompareTableModel::setSummaries(const engine::Summary& a, const engine::Summary& b) {
  std::vector<DeltaRow> rows = deltaRows(a, b);
  if (rows.size() != m_rows.size()) {
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
    return;
  }
  m_rows = std::move(rows);
  if (!m_rows.empty())
    Q_EMIT dataChanged(index(0, RunA), index(rowCount() - 1, Delta), {Qt::DisplayRole});
}

void CompareTableModel::setRunNames(const QString& a, const QString& b) {
  m_columns[RunA].header = QStringLiteral("A: %1").arg(a);
  m_columns[RunB].header = QStringLiteral("B: %1").arg(b);
  Q_EMIT headerDataChanged(Qt::Horizontal, RunA, RunB);
}

}  // namespace throttlelab::ui
