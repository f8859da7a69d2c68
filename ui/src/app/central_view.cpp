// SPDX-License-Identifier: GPL-3.0-or-later
#include "central_view.h"

#include <QAction>
#include <QDockWidget>

#include "compare_view.h"
#include "dashboard.h"
#include "host_view.h"
#include "live_controller.h"
#include "run_controls.h"
#include "trace_view.h"

namespace throttlelab::ui {

bool isInFront(const QDockWidget& dock) {
  return dock.isVisible() && !dock.visibleRegion().isEmpty();
}

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

QWidget* TracePart::widget() const {
  return &m_view;
}

void TracePart::activate() {
  m_runControls.setRunning(false);
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

}  // namespace throttlelab::ui
