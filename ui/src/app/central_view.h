// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// One of the window's central views as MainWindow composes them: the live dashboard, the
/// policy comparison, the real-kernel trace view and this machine live. MainWindow asks each
/// part what it needs (its widget, whether the simulation controls drive it) and tells it when
/// it is shown and hidden; what a view runs, polls or hides is the part's business.
#include <QObject>
#include <QString>
#include <functional>
#include <vector>

class QDockWidget;
class QWidget;

namespace throttlelab::ui {

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
};

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
  ComparePart(CompareView& view, const LiveController& live, RunControls& runControls,
              StatusLine status)
      : m_view(view), m_live(live), m_runControls(runControls), m_status(std::move(status)) {}
  QWidget* widget() const override;
  bool drivesSimulation() const override { return true; }
  void activate() override;
  void deactivate() override;
  void shutdown() override { deactivate(); }

 private:
  CompareView& m_view;
  const LiveController& m_live;
  RunControls& m_runControls;
  StatusLine m_status;
};

/// An imported trace against its simulation; an import or simulation in progress carries on
/// while the view is hidden.
class TracePart final : public CentralViewPart {
 public:
  TracePart(TraceView& view, RunControls& runControls) : m_view(view), m_runControls(runControls) {}
  QWidget* widget() const override;
  bool drivesSimulation() const override { return false; }
  void activate() override;
  void deactivate() override {}

 private:
  TraceView& m_view;
  RunControls& m_runControls;
};

/// This machine live: leaving it stops polling and any recording.
class HostPart final : public CentralViewPart {
 public:
  HostPart(HostView& view, RunControls& runControls, StatusLine status)
      : m_view(view), m_runControls(runControls), m_status(std::move(status)) {}
  QWidget* widget() const override;
  bool drivesSimulation() const override { return false; }
  void activate() override;
  void deactivate() override;
  void shutdown() override { deactivate(); }

 private:
  HostView& m_view;
  RunControls& m_runControls;
  StatusLine m_status;
};

}  // namespace throttlelab::ui
