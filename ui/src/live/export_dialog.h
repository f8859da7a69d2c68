// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Asks what to export: the dashboard or one plot, and in which format.
#include <QDialog>
#include <optional>

#include "plot_id.h"

class QComboBox;

namespace throttlelab::ui {

enum class ExportFormat { Png1x, Png2x, Svg, Pdf, CsvAll, CsvVisible, TaskCsv };

struct ExportChoice {
  std::optional<PlotId> plot;  ///< nullopt: the whole dashboard
  ExportFormat format = ExportFormat::Png1x;
};

class ExportDialog : public QDialog {
  Q_OBJECT

 public:
  explicit ExportDialog(std::optional<PlotId> preselected, QWidget* parent = nullptr);
  ExportChoice choice() const;

  /// File-dialog filter and default suffix for a format.
  static QString filter(ExportFormat format);
  static QString suffix(ExportFormat format);

 private:
  void updateTargets();

  QComboBox* m_target;
  QComboBox* m_format;
};

}  // namespace throttlelab::ui
