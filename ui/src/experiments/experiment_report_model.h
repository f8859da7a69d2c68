// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The table of an experiment's report: case | metric | mail | simulated (min–max) | note, one
/// row per case metric, plus the verdicts on the mail's claims.
#include <QAbstractTableModel>
#include <memory>
#include <vector>

#include "throttlelab/engine/experiments.h"

namespace throttlelab::ui {

class ExperimentReportModel final : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Case, Metric, Mail, Simulated, Note, ColumnCount };

  explicit ExperimentReportModel(QObject* parent = nullptr);

  void setResult(std::shared_ptr<const engine::ExperimentResult> result);
  void clear();
  std::shared_ptr<const engine::ExperimentResult> result() const { return m_result; }
  const std::vector<engine::Verdict>& verdicts() const;
  int holdingVerdicts() const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  std::shared_ptr<const engine::ExperimentResult> m_result;
};

}  // namespace throttlelab::ui
