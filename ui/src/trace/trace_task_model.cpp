// SPDX-License-Identifier: GPL-3.0-or-later
#include "trace_task_model.h"

namespace throttlelab::ui {

namespace {
using Row = TraceTaskRow;
/// A number sorted as itself and shown rounded to whole units.
ColumnTableModel<Row>::Column rounded(const QString& header, const QString& toolTip,
                                      double Row::*field) {
  return {.header = header,
          .toolTip = toolTip,
          .shown = [field](const Row& r) { return QVariant(QString::number(r.*field, 'f', 0)); },
          .raw = [field](const Row& r) { return QVariant(r.*field); }};
}
}  // namespace

TraceTaskModel::TraceTaskModel(QObject* parent)
    : ColumnTableModel(
          {
              {.header = tr("PID"), .shown = [](const Row& r) { return QVariant(r.pid); }},
              {.header = tr("Command"),
               .shown = [](const Row& r) { return QVariant(r.comm); },
               .alignLeft = true},
              {.header = tr("Dirtied pages"),
               .toolTip = tr("Sum of balance_dirty_pages dirtied=, pages"),
               .shown =
                   [](const Row& r) { return QVariant(static_cast<qlonglong>(r.dirtiedPages)); }},
              rounded(tr("Rate KB/s"),
                      tr("Pages dirtied × 4 KiB over the pid's first to last balance_dirty_pages"),
                      &Row::rateKBps),
              {.header = tr("Pauses"),
               .toolTip = tr("balance_dirty_pages records with pause > 0"),
               .shown = [](const Row& r) { return QVariant(static_cast<qlonglong>(r.pauses)); }},
              rounded(tr("Pause p50 ms"), tr("Over the pauses > 0, milliseconds"),
                      &Row::pauseMsP50),
              rounded(tr("max ms"), tr("Over the pauses > 0, milliseconds"), &Row::pauseMsMax),
          },
          kSortRole, parent) {}

}  // namespace throttlelab::ui
