// SPDX-License-Identifier: GPL-3.0-or-later
#include "trace_comparison_model.h"

#include "series_spec.h"

namespace throttlelab::ui {

namespace {
using Row = traceio::ComparisonRow;
ColumnTableModel<Row>::Column value(const QString& header, double Row::*field) {
  return {.header = header,
          .shown = [field](const Row& r) { return QVariant(formatValue(r.*field)); },
          .raw = [field](const Row& r) { return QVariant(r.*field); }};
}
}  // namespace

TraceComparisonModel::TraceComparisonModel(QObject* parent)
    : ColumnTableModel(
          {
              {.header = tr("metric"),
               .shown = [](const Row& r) { return QVariant(QString::fromStdString(r.metric)); },
               .alignLeft = true},
              value(tr("measured"), &Row::measured),
              value(tr("simulated"), &Row::simulated),
              {.header = tr("off %"),
               .shown = [](const Row& r) { return QVariant(formatPercentChange(r.offPct, 0)); },
               .raw = [](const Row& r) { return r.offPct ? QVariant(*r.offPct) : QVariant(); }},
          },
          kNoSortRole, parent) {}

}  // namespace throttlelab::ui
