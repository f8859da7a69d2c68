// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The measured-versus-simulated table of the real-kernel view: metric | measured | simulated
/// | off %, the rows of traceio::compare().
#include <QAbstractTableModel>
#include <vector>

#include "throttlelab/traceio/trace_stats.h"

namespace throttlelab::ui {

class TraceComparisonModel final : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Metric, Measured, Simulated, OffPct, ColumnCount };

  explicit TraceComparisonModel(QObject* parent = nullptr);

  void setRows(std::vector<traceio::ComparisonRow> rows);
  void clear();
  const std::vector<traceio::ComparisonRow>& rows() const { return m_rows; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  /// Qt::EditRole gives the raw numbers.
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  std::vector<traceio::ComparisonRow> m_rows;
};

}  // namespace throttlelab::ui
