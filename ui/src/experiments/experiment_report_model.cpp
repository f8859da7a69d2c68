// SPDX-License-Identifier: GPL-3.0-or-later
#include "experiment_report_model.h"

#include <cmath>
#include <iterator>

#include "series_spec.h"
#include "tool_tip_text.h"

namespace throttlelab::ui {

namespace {
const std::vector<engine::Verdict> kNoVerdicts;

QString withUnit(double v, const std::string& unit) {
  if (std::isnan(v)) return QStringLiteral("—");
  const QString u = unit == "count" ? QString() : QString::fromStdString(unit);
  return u.isEmpty() ? formatValue(v) : QStringLiteral("%1 %2").arg(formatValue(v), u);
}
}  // namespace

ExperimentReportModel::ExperimentReportModel(QObject* parent) : QAbstractTableModel(parent) {}

void ExperimentReportModel::setResult(std::shared_ptr<const engine::ExperimentResult> result) {
  beginResetModel();
  m_result = std::move(result);
  endResetModel();
}

void ExperimentReportModel::clear() {
  setResult(nullptr);
}

const std::vector<engine::Verdict>& ExperimentReportModel::verdicts() const {
  return m_result ? m_result->verdicts : kNoVerdicts;
}

int ExperimentReportModel::holdingVerdicts() const {
  int n = 0;
  for (const auto& v : verdicts()) n += v.holds ? 1 : 0;
  return n;
}

int ExperimentReportModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !m_result ? 0 : static_cast<int>(m_result->rows.size());
}

int ExperimentReportModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant ExperimentReportModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const engine::MetricResult& r = m_result->rows[static_cast<std::size_t>(index.row())];
  if (role == Qt::TextAlignmentRole)
    return index.column() == Mail || index.column() == Simulated
               ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
               : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
  if (role == Qt::ToolTipRole && index.column() == Note)
    return wrappingToolTip(QString::fromStdString(r.note));
  if (role == Qt::ToolTipRole && index.column() == Simulated) {
    QStringList seeds;
    for (double v : r.perSeed) seeds << formatValue(v);
    return tr("per seed: %1").arg(seeds.join(QStringLiteral(", ")));
  }
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case Case:
      return QString::fromStdString(r.caseName);
    case Metric:
      return QString::fromStdString(r.label);
    case Mail:
      return r.seedValue ? withUnit(*r.seedValue, r.unit) : QStringLiteral("—");
    case Simulated: {
      const QString mean = withUnit(r.simulated, r.unit);
      if (r.perSeed.size() < 2 || r.simulatedMin == r.simulatedMax) return mean;
      return QStringLiteral("%1 (%2–%3)")
          .arg(mean, formatValue(r.simulatedMin), formatValue(r.simulatedMax));
    }
    case Note:
      return QString::fromStdString(r.note);
  }
  return {};
}

QVariant ExperimentReportModel::headerData(int section, Qt::Orientation orientation,
                                           int role) const {
  // By Column.
  static constexpr const char* kTitles[] = {QT_TR_NOOP("case"), QT_TR_NOOP("metric"),
                                            QT_TR_NOOP("mail"), QT_TR_NOOP("simulated (min–max)"),
                                            QT_TR_NOOP("note")};
  static_assert(std::size(kTitles) == ColumnCount);
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 ||
      section >= ColumnCount)
    return {};
  return tr(kTitles[section]);
}

}  // namespace throttlelab::ui
