// SPDX-License-Identifier: GPL-3.0-or-later
#include "central_view.h"

#include <QAction>
#include <QCoreApplication>
#include <QDockWidget>
#include <QImage>
#include <QImageWriter>

#include "branch_controller.h"
#include "compare_view.h"
#include "dashboard.h"
#include "exporter.h"
#include "host_view.h"
#include "live_controller.h"
#include "run_controls.h"
#include "save_file.h"
#include "trace_view.h"

namespace throttlelab::ui {

bool isInFront(const QDockWidget& dock) {
  return dock.isVisible() && !dock.visibleRegion().isEmpty();
}

QString exportWindowPng(QWidget& window, const QString& path, double scale) {
  QCoreApplication::processEvents();  // the view's pending layouts and replots
  QImage image(window.size() * scale, QImage::Format_ARGB32_Premultiplied);
  image.setDevicePixelRatio(scale);
  image.fill(window.palette().color(QPalette::Window));
  window.render(&image);
  SaveFile file(path);
  if (!file.open(QIODevice::WriteOnly))
    return QObject::tr("Cannot write %1: %2.").arg(path, file.errorString());
  QImageWriter writer(&file, "png");
  if (!writer.write(image)) {
    file.cancelWriting();
    return QObject::tr("Cannot write %1: %2.").arg(path, writer.errorString());
  }
  if (!file.commit()) return QObject::tr("Cannot write %1: %2.").arg(path, file.errorString());
  return {};
}

namespace {
/// The Real kernel and host views are not the dashboard's plots (an --open-trace figure was
/// the empty dashboard at t = 0): a figure of the whole view is the window as it shows it.
/// One plot, and the CSVs, are the live run's, as their columns say.
QString exportShownWindow(QWidget& view, const QString& viewName, const CentralViewPart& live,
                          const QString& path, const ExportChoice& choice) {
  if (choice.plot) return live.exportTo(path, choice);
  switch (choice.format) {
    case ExportFormat::Png1x:
      return exportWindowPng(*view.window(), path, 1);
    case ExportFormat::Png2x:
      return exportWindowPng(*view.window(), path, 2);
    case ExportFormat::Svg:
    case ExportFormat::Pdf:
      return QObject::tr(
                 "The %1 view exports as PNG only (the window as it shows it); SVG and "
                 "PDF draw the dashboard's plots.")
          .arg(viewName);
    default:
      return live.exportTo(path, choice);
  }
}
}  // namespace

QWidget* LivePart::widget() const {
  return &m_dashboard;
}

void LivePart::activate() {
  for (QDockWidget* dock : m_wereOpen) dock->show();
  for (QDockWidget* dock : m_wereShown) dock->raise();
  m_wereOpen.clear();
  m_wereShown.clear();
  m_controller.setRunning(m_wasRunning);
  m_runControls.setRunning(m_wasRunning);
}

void LivePart::deactivate() {
  m_wasRunning = m_controller.isRunning();
  m_controller.setRunning(false);
  // A tab behind another is open but not visible: its View action says it is open. Before the
  // window is first shown (--open-trace), no action is checked yet and none is hidden.
  m_wereOpen.clear();
  m_wereShown.clear();
  for (QDockWidget* dock : m_docks) {
    if (!dock->toggleViewAction()->isChecked() && dock->isHidden()) continue;
    m_wereOpen.push_back(dock);
    if (isInFront(*dock)) m_wereShown.push_back(dock);
  }
  for (QDockWidget* dock : m_wereOpen) dock->hide();  // of the paused live run
}

void LivePart::shutdown() {
  m_controller.stop();
}

QString LivePart::exportTo(const QString& path, const ExportChoice& choice) const {
  const Exporter exporter(m_dashboard, m_controller.history(), m_controller.scenario());
  if (choice.format == ExportFormat::TaskCsv)
    return exporter.exportTaskCsv(path, m_controller.taskHistory(), m_controller.taskInfos());
  return exporter.exportAs(path, choice);
}

QWidget* ComparePart::widget() const {
  return &m_view;
}

void ComparePart::activate() {
  m_view.setSpeed(m_live.speed());
  if (m_view.branch()) {  // started already, by Branch here
    m_runControls.setRunning(m_view.isRunning());
    return;
  }
  m_view.start(m_live.scenario(), true);
  m_runControls.setRunning(true);
  m_status(
      QObject::tr("Comparing %1 with %2 on %3; the live run is paused")
          .arg(m_view.policyA(), m_view.policyB(), QString::fromStdString(m_live.scenario().name)),
      6000);
}

void ComparePart::deactivate() {
  m_view.stop();
}

QString ComparePart::exportTo(const QString& path, const ExportChoice& choice) const {
  return m_branch.branch() ? m_branch.exportTo(path, choice) : m_livePart.exportTo(path, choice);
}

QWidget* TracePart::widget() const {
  return &m_view;
}

void TracePart::activate() {
  m_runControls.setRunning(false);
}

QString TracePart::exportTo(const QString& path, const ExportChoice& choice) const {
  return exportShownWindow(m_view, QObject::tr("Real kernel"), m_livePart, path, choice);
}

QWidget* HostPart::widget() const {
  return &m_view;
}

void HostPart::activate() {
  m_runControls.setRunning(false);
  m_view.start();
  m_status(QObject::tr("Watching this machine; the live simulation is paused"), 6000);
}

void HostPart::deactivate() {
  m_view.stop();
}

QString HostPart::exportTo(const QString& path, const ExportChoice& choice) const {
  return exportShownWindow(m_view, QObject::tr("host"), m_livePart, path, choice);
}

}  // namespace throttlelab::ui
