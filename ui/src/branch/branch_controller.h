// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// "Branch here": goes back to a moment of the live run (the live worker's snapshots,
/// engine::SnapshotStore::rewind), applies the changes there and shows both futures live in
/// the compare view. While the branch is shown, a changed control changes the branch: it goes
/// on again from the same moment with every change made so far. Sessions and exports of the
/// compare view then carry the branch.
#include <QObject>
#include <QString>
#include <optional>
#include <utility>
#include <vector>

#include "branch_spec.h"
#include "export_dialog.h"
#include "session_state.h"

namespace throttlelab::ui {

class CompareView;
class LiveController;

class BranchController final : public QObject {
  Q_OBJECT

 public:
  BranchController(LiveController& live, CompareView& compare, QObject* parent = nullptr);

  /// Branches the live run at `atS` with `changes` and starts both futures in the compare view
  /// (paused unless `running`). Returns the reason it could not, or an empty string.
  QString branchHere(double atS, const std::vector<engine::Override>& changes, bool running);
  /// The branch shown, if the compare view shows one.
  std::optional<BranchSpec> branch() const;
  /// The compare view's control edits while a branch is shown: the branch goes on again from
  /// its moment with the changes from the run's scenario there to `edited`. Returns the reason
  /// if the change cannot be made (the branch stays as it was).
  QString edit(const engine::Scenario& edited);
  /// The scenario the branch runs (what the parameters show while it is shown).
  const engine::Scenario& branchScenario() const;

  /// Its part of a session: the branch and how far both runs went.
  std::optional<SessionBranch> capture() const;
  /// Re-opens a session's branch: runs the (just loaded) live run to the branch's original
  /// time, branches, and runs the branch to where it was; then both go on if `running`.
  /// restored() says when it is done. A restore still under way is cancelled first.
  void restore(const SessionBranch& branch, bool running);
  /// While restore() is under way: simulated seconds done, of the whole it runs (the run to
  /// originalS, then the branch from atS to branchS), for a progress report.
  std::optional<std::pair<double, double>> restoreProgress() const;
  /// Stops restore() where it has got: the run, or the branch if it has been made, stays
  /// paused there, and restored() says where it stopped. Nothing if no restore is under way.
  void cancelRestore();

  /// The compare view with the branch, exported: figures title both runs; a CSV is two files,
  /// the original's at `path` and the branch's beside it (branchCsvPath) with "# branch_of",
  /// "# branch_at_s" and "# branch_set" lines.
  QString exportTo(const QString& path, const ExportChoice& choice) const;
  static QString branchCsvPath(const QString& path);

 Q_SIGNALS:
  /// A branch was made: show the compare view.
  void started();
  /// restore() has put the branch back (or failed: `error`).
  void restored(const QString& error);

 private:
  /// The restore under way: what it restores, and how far it has got.
  struct Restoring {
    SessionBranch kept;
    bool running = false;
    bool branched = false;  ///< the branch has been made; its own run is under way
  };
  void restoreBranch();
  void endRestore(const QString& error);
  /// The run that restore() is waiting for stopped short of its time (paused by the user,
  /// reloaded): the restore ends there.
  void checkRestoreStopped();
  LiveController& restoringRun() const;

  LiveController& m_live;
  CompareView& m_compare;
  std::optional<Restoring> m_restoring;
  QMetaObject::Connection m_restoreStep;     ///< the run reaching its time
  QMetaObject::Connection m_restoreStopped;  ///< the run stopping before it
  engine::Scenario m_base;                   ///< the run's scenario at the branch point
  BranchSpec m_spec;                         ///< the branch shown (as given: the user's keys)
};

}  // namespace throttlelab::ui
