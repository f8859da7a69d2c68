// SPDX-License-Identifier: GPL-3.0-or-later
#include "export_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QPushButton>

namespace throttlelab::ui {

ExportDialog::ExportDialog(std::optional<PlotId> preselected, QWidget* parent)
    : QDialog(parent), m_target(new QComboBox(this)), m_format(new QComboBox(this)) {
  setWindowTitle(tr("Export"));
  auto* form = new QFormLayout(this);
  m_format->addItem(tr("PNG image"), static_cast<int>(ExportFormat::Png1x));
  m_format->addItem(tr("PNG image, 2× resolution"), static_cast<int>(ExportFormat::Png2x));
  m_format->addItem(tr("SVG vector image"), static_cast<int>(ExportFormat::Svg));
  m_format->addItem(tr("PDF document"), static_cast<int>(ExportFormat::Pdf));
  m_format->addItem(tr("CSV data, everything kept"), static_cast<int>(ExportFormat::CsvAll));
  m_format->addItem(tr("CSV data, visible time range"), static_cast<int>(ExportFormat::CsvVisible));
  m_format->addItem(tr("Task CSV, the tasks drawn"), static_cast<int>(ExportFormat::TaskCsv));
  m_target->addItem(tr("Whole dashboard"), -1);
  for (PlotId id : kAllPlots) m_target->addItem(plotTitle(id), static_cast<int>(id));
  if (preselected) m_target->setCurrentIndex(m_target->findData(static_cast<int>(*preselected)));
  form->addRow(tr("Format"), m_format);
  form->addRow(tr("What"), m_target);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Export…"));
  form->addRow(buttons);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(m_format, &QComboBox::currentIndexChanged, this, &ExportDialog::updateTargets);
  updateTargets();
}

void ExportDialog::updateTargets() {
  // CSV holds every sample column whatever plot is chosen.
  const auto f = static_cast<ExportFormat>(m_format->currentData().toInt());
  m_target->setEnabled(f != ExportFormat::CsvAll && f != ExportFormat::CsvVisible &&
                       f != ExportFormat::TaskCsv);
}

ExportChoice ExportDialog::choice() const {
  ExportChoice c;
  c.format = static_cast<ExportFormat>(m_format->currentData().toInt());
  const int target = m_target->currentData().toInt();
  if (target >= 0) c.plot = static_cast<PlotId>(target);
  return c;
}

namespace {
/// A file type of the export: its file suffix and the dialog filter naming it.
struct ExportFile {
  const char* suffix;
  const char* filter;
};
ExportFile exportFile(ExportFormat format) {
  switch (format) {
    case ExportFormat::Png1x:
    case ExportFormat::Png2x:
      return {"png", QT_TRANSLATE_NOOP("ExportDialog", "PNG images (*.png)")};
    case ExportFormat::Svg:
      return {"svg", QT_TRANSLATE_NOOP("ExportDialog", "SVG images (*.svg)")};
    case ExportFormat::Pdf:
      return {"pdf", QT_TRANSLATE_NOOP("ExportDialog", "PDF documents (*.pdf)")};
    case ExportFormat::CsvAll:
    case ExportFormat::CsvVisible:
    case ExportFormat::TaskCsv:
      return {"csv", QT_TRANSLATE_NOOP("ExportDialog", "CSV files (*.csv)")};
  }
  return {"", ""};
}
}  // namespace

QString ExportDialog::filter(ExportFormat format) {
  const char* f = exportFile(format).filter;
  return *f ? tr(f) : QString();
}

QString ExportDialog::suffix(ExportFormat format) {
  const char* s = exportFile(format).suffix;
  return *s ? QString::fromLatin1(s) : QString();
}

}  // namespace throttlelab::ui
