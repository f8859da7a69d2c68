// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The compare view's delta table: metric | A | B | Δ %, from the Simulator::summary() each
/// run's worker publishes (~2 Hz). The figures are the policy comparison's (iostat %system,
/// wkB/s, avgrq-sz, seeks/s, pauses, dirty pages) plus the mean throughput per writer.
#include <QString>
#include <optional>
#include <vector>

#include "column_table_model.h"
#include "throttlelab/engine/records.h"

namespace throttlelab::ui {

struct DeltaRow {
  QString key;  ///< comparisonMetrics() key, or "writer_kbps"
  QString label;
  QString unit;
  double a = 0;
  double b = 0;
  /// (b − a) / a × 100; nullopt when a is 0 and b is not (0 when both are).
  std::optional<double> deltaPct;
};

class CompareTableModel final : public ColumnTableModel<DeltaRow> {
  Q_OBJECT

 public:
  enum Column { Metric, RunA, RunB, Delta, ColumnCount };

  explicit CompareTableModel(QObject* parent = nullptr);

  /// The rows for two summaries (a pure function; the model shows its result).
  static std::vector<DeltaRow> deltaRows(const engine::Summary& a, const engine::Summary& b);
  static std::optional<double> deltaPct(double a, double b);

  void setSummaries(const engine::Summary& a, const engine::Summary& b);
  void setRunNames(const QString& a, const QString& b);

 protected:
  QVariant rowToolTip(const DeltaRow& r) const override { return r.key; }
};

}  // namespace throttlelab::ui
