// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The measured-versus-simulated table of the real-kernel view: metric | measured | simulated
/// | off %, the rows of traceio::compare(). Qt::EditRole gives the raw numbers.
#include "column_table_model.h"
#include "throttlelab/traceio/trace_stats.h"

namespace throttlelab::ui {

class TraceComparisonModel final : public ColumnTableModel<traceio::ComparisonRow> {
  Q_OBJECT

 public:
  enum Column { Metric, Measured, Simulated, OffPct, ColumnCount };

  explicit TraceComparisonModel(QObject* parent = nullptr);
};

}  // namespace throttlelab::ui
