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

CompareTableModel::CompareTableModel(QObject* parent) : QAbstractTableModel(parent) {}

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
  m_nameA = a;
  m_nameB = b;
  Q_EMIT headerDataChanged(Qt::Horizontal, RunA, RunB);
}

void CompareTableModel::clear() {
  beginResetModel();
  m_rows.clear();
  endResetModel();
}

int CompareTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int CompareTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant CompareTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const DeltaRow& r = m_rows[static_cast<std::size_t>(index.row())];
  if (role == Qt::TextAlignmentRole)
    return index.column() == Metric ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                    : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ToolTipRole) return r.key;
  if (role != Qt::DisplayRole && role != Qt::EditRole) return {};
  const bool edit = role == Qt::EditRole;  // the raw number, for tests and copying
  switch (index.column()) {
    case Metric:
      return r.unit.isEmpty() || r.unit == QLatin1String("count")
                 ? r.label
                 : QStringLiteral("%1 (%2)").arg(r.label, r.unit);
    case RunA:
      return edit ? QVariant(r.a) : QVariant(formatValue(r.a));
    case RunB:
      return edit ? QVariant(r.b) : QVariant(formatValue(r.b));
    case Delta:
      if (!r.deltaPct) return edit ? QVariant() : QVariant(QStringLiteral("—"));
      if (edit) return *r.deltaPct;
      return QStringLiteral("%1%2 %").arg(*r.deltaPct >= 0 ? "+" : "").arg(*r.deltaPct, 0, 'f', 1);
  }
  return {};
}

QVariant CompareTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Metric:
      return tr("metric");
    case RunA:
      return QStringLiteral("A: %1").arg(m_nameA);
    case RunB:
      return QStringLiteral("B: %1").arg(m_nameB);
    case Delta:
      return tr("Δ % (B vs A)");
  }
  return {};
}

}  // namespace throttlelab::ui
