// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// One of the window's central views as MainWindow composes them: the live dashboard, the
/// policy comparison, the real-kernel trace view and this machine live. MainWindow asks each
/// part what it needs (its widget, whether the simulation controls drive it, its figures and
/// data as files) and tells it when it is shown and hidden; what a view runs, polls, hides or
/// exports is the part's business.
#include <QObject>
#include <QString>
#include <functional>
#include <vector>

#include "export_dialog.h"

class QDockWidget;
class QWidget;

namespace throttlelab::ui {

class BranchController;
class CompareView;
class Dashboard;
class HostView;
class LiveController;
class RunControls;
class TraceView;

class CentralViewPart {
 public:
  virtual ~CentralViewPart() = default;
  virtual QWidget* widget() const = 0;
  /// Run, Step, Reset and the parameters drive a simulation shown in this view.
  virtual bool drivesSimulation() const = 0;
  /// The view has become the central one (its widget is current).
  virtual void activate() = 0;
  /// Another view is about to be shown: pause or stop what this one runs or polls.
  virtual void deactivate() = 0;
  /// The window goes: stop threads (and put anything borrowed from the system back).
  virtual void shutdown() {}
  /// Writes what `choice` asks of this view (File ▸ Export…, a scripted --export-*): a figure
  /// of it or of one plot, or the CSVs. Returns an error message, or an empty string.
  virtual QString exportTo(const QString& path, const ExportChoice& choice) const = 0;
};

/// The window as it is shown, as a PNG at `scale` (through SaveFile): the figure of a view
/// that is not plots alone, and of a lesson's step beside its plots. An error message, or "".
QString exportWindowPng(QWidget& window, const QString& path, double scale);

/// Whether `dock` is shown, and in front of its tab group: Qt counts the tabs behind as
/// visible too (isVisible()), though nothing of them is on the screen.
bool isInFront(const QDockWidget& dock);

/// A status-bar line (text, milliseconds shown).
using StatusLine = std::function<void(const QString& text, int timeoutMs)>;

/// The live run: leaving it pauses it and hides its docks (the task table, "Why this pause",
/// the timeline: all of the paused run, and on a 1024x768 projector they took the compare
/// view's height); coming back resumes the run and opens the docks that were open, the same
/// tab in front.
class LivePart final : public CentralViewPart {
 public:
  LivePart(Dashboard& dashboard, LiveController& controller, RunControls& runControls,
           std::vector<QDockWidget*> docks)
      : m_dashboard(dashboard),
        m_controller(controller),
        m_runControls(runControls),
        m_docks(std::move(docks)) {}
  QWidget* widget() const override;
  bool drivesSimulation() const override { return true; }
  void activate() override;
  void deactivate() override;
  void shutdown() override;
  /// The dashboard's figures, the live run's samples and the drawn tasks' rows.
  QString exportTo(const QString& path, const ExportChoice& choice) const override;

 private:
  Dashboard& m_dashboard;
  LiveController& m_controller;
  RunControls& m_runControls;
  std::vector<QDockWidget*> m_docks;
  bool m_wasRunning = true;
  std::vector<QDockWidget*> m_wereOpen;   ///< of m_docks, those open when the view was left
  std::vector<QDockWidget*> m_wereShown;  ///< and of those, the tabs in front
};

/// The live scenario under two policies; leaving it stops both compared runs.
class ComparePart final : public CentralViewPart {
 public:
  ComparePart(CompareView& view, const BranchController& branch, const LiveController& live,
              const CentralViewPart& livePart, RunControls& runControls, StatusLine status)
      : m_view(view),
        m_branch(branch),
        m_live(live),
        m_livePart(livePart),
        m_runControls(runControls),
        m_status(std::move(status)) {}
  QWidget* widget() const override;
  bool drivesSimulation() const override { return true; }
  void activate() override;
  void deactivate() override;
  void shutdown() override { deactivate(); }
  /// A run and its branch: both, as the view shows them. A policy comparison exports what the
  /// live view would (its dashboard and run).
  QString exportTo(const QString& path, const ExportChoice& choice) const override;

 private:
  CompareView& m_view;
  const BranchController& m_branch;
  const LiveController& m_live;
  const CentralViewPart& m_livePart;
  RunControls& m_runControls;
  StatusLine m_status;
};

/// An imported trace against its simulation; an import or simulation in progress carries on
/// while the view is hidden.
class TracePart final : public CentralViewPart {
 public:
  TracePart(TraceView& view, const CentralViewPart& livePart, RunControls& runControls)
      : m_view(view), m_livePart(livePart), m_runControls(runControls) {}
  QWidget* widget() const override;
  bool drivesSimulation() const override { return false; }
  void activate() override;
  void deactivate() override {}
  /// The window as it shows the trace (PNG only); one plot and the CSVs are the live run's.
  QString exportTo(const QString& path, const ExportChoice& choice) const override;

 private:
  TraceView& m_view;
  const CentralViewPart& m_livePart;
  RunControls& m_runControls;
};

/// This machine live: leaving it stops polling and any recording.
class HostPart final : public CentralViewPart {
 public:
  HostPart(HostView& view, const CentralViewPart& livePart, RunControls& runControls,
           StatusLine status)
      : m_view(view),
        m_livePart(livePart),
        m_runControls(runControls),
        m_status(std::move(status)) {}
  QWidget* widget() const override;
  bool drivesSimulation() const override { return false; }
  void activate() override;
  void deactivate() override;
  void shutdown() override { deactivate(); }
  /// The window as it shows this machine (PNG only); one plot and the CSVs are the live run's.
  QString exportTo(const QString& path, const ExportChoice& choice) const override;

 private:
  HostView& m_view;
  const CentralViewPart& m_livePart;
  RunControls& m_runControls;
  StatusLine m_status;
};

}  // namespace throttlelab::ui
