// SPDX-License-Identifier: GPL-3.0-or-later
#include "trace_comparison_model.h"

#include "series_spec.h"

namespace throttlelab::ui {

TraceComparisonModel::TraceComparisonModel(QObject* parent) : QAbstractTableModel(parent) {}

void TraceComparisonModel::setRows(std::vector<traceio::ComparisonRow> rows) {
  beginResetModel();
  m_rows = std::move(rows);
  endResetModel();
}

void TraceComparisonModel::clear() {
  setRows({});
}

int TraceComparisonModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int TraceComparisonModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant TraceComparisonModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const traceio::ComparisonRow& r = m_rows[static_cast<std::size_t>(index.row())];
  if (role == Qt::TextAlignmentRole)
    return index.column() == Metric ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                    : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role != Qt::DisplayRole && role != Qt::EditRole) return {};
  const bool edit = role == Qt::EditRole;
  switch (index.column()) {
    case Metric:
      return QString::fromStdString(r.metric);
    case Measured:
      return edit ? QVariant(r.measured) : QVariant(formatValue(r.measured));
    case Simulated:
      return edit ? QVariant(r.simulated) : QVariant(formatValue(r.simulated));
    case OffPct:
      if (!r.offPct) return edit ? QVariant() : QVariant(QStringLiteral("—"));
      if (edit) return *r.offPct;
      return QStringLiteral("%1%2 %").arg(*r.offPct >= 0 ? "+" : "").arg(*r.offPct, 0, 'f', 0);
  }
  return {};
}

QVariant TraceComparisonModel::headerData(int section, Qt::Orientation orientation,
                                          int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Metric:
      return tr("metric");
    case Measured:
      return tr("measured");
    case Simulated:
      return tr("simulated");
    case OffPct:
      return tr("off %");
  }
  return {};
}

}  // namespace throttlelab::ui
