// SPDX-License-Identifier: GPL-3.0-or-later
#include "trace_task_model.h"

namespace throttlelab::ui {

TraceTaskModel::TraceTaskModel(QObject* parent) : QAbstractTableModel(parent) {}

void TraceTaskModel::setRows(std::vector<TraceTaskRow> rows) {
  beginResetModel();
  m_rows = std::move(rows);
  endResetModel();
}

void TraceTaskModel::clear() {
  setRows({});
}

int TraceTaskModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int TraceTaskModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant TraceTaskModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const TraceTaskRow& r = m_rows[static_cast<std::size_t>(index.row())];
  if (role == Qt::TextAlignmentRole)
    return index.column() == Comm ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                  : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  const bool sort = role == kSortRole || role == Qt::EditRole;
  if (!sort && role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case Pid:
      return r.pid;
    case Comm:
      return r.comm;
    case Dirtied:
      return static_cast<qlonglong>(r.dirtiedPages);
    case RateKBps:
      return sort ? QVariant(r.rateKBps) : QVariant(QString::number(r.rateKBps, 'f', 0));
    case Pauses:
      return static_cast<qlonglong>(r.pauses);
    case PauseP50:
      return sort ? QVariant(r.pauseMsP50) : QVariant(QString::number(r.pauseMsP50, 'f', 0));
    case PauseMax:
      return sort ? QVariant(r.pauseMsMax) : QVariant(QString::number(r.pauseMsMax, 'f', 0));
    default:
      return {};
  }
}

QVariant TraceTaskModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::ToolTipRole) {
    switch (section) {
      case Dirtied:
        return tr("Sum of balance_dirty_pages dirtied=, pages");
      case RateKBps:
        return tr("Pages dirtied × 4 KiB over the pid's first to last balance_dirty_pages");
      case Pauses:
        return tr("balance_dirty_pages records with pause > 0");
      case PauseP50:
      case PauseMax:
        return tr("Over the pauses > 0, milliseconds");
      default:
        return {};
    }
  }
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case Pid:
      return tr("PID");
    case Comm:
      return tr("Command");
    case Dirtied:
      return tr("Dirtied pages");
    case RateKBps:
      return tr("Rate KB/s");
    case Pauses:
      return tr("Pauses");
    case PauseP50:
      return tr("Pause p50 ms");
    case PauseMax:
      return tr("max ms");
    default:
      return {};
  }
}

}  // namespace throttlelab::ui
