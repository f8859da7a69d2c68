// SPDX-License-Identifier: GPL-3.0-or-later
#include "branch_controller.h"

#include <QDir>
#include <QFileInfo>
#include <algorithm>

#include "compare_plot.h"
#include "compare_view.h"
#include "exporter.h"
#include "live_controller.h"

namespace throttlelab::ui {

namespace {
/// The mark on every plot names the branch in full ("branch: vm.dirty_ratio=10 at 600 s").
QString markLabel(const BranchSpec& spec) {
  return branchRunName(spec);
}
}  // namespace

BranchController::BranchController(LiveController& live, CompareView& compare, QObject* parent)
    : QObject(parent), m_live(live), m_compare(compare) {
  setObjectName(QStringLiteral("branchController"));
}

QString BranchController::branchHere(double atS, const std::vector<engine::Override>& changes,
                                     bool running) {
  command::BranchResult r = m_live.branchAt(atS, changes);
  if (!r.error.empty()) return QString::fromStdString(r.error);
  const BranchSpec spec{atS, changes};
  m_base = r.base;
  m_spec = spec;
  // The worker handed over every sample up to originalS before it answered: one drain takes
  // them in (none is waited for), and later ones are the original's own future.
  m_live.frame();
  std::vector<engine::Sample> before;
  for (const auto& s : m_live.history())
    if (engine::toSeconds(s.time) <= r.originalS + 1e-9) before.push_back(s);
  m_compare.startBranch(CompareView::BranchRuns{.originalName = originalRunName(),
                                                .branchName = branchRunName(spec),
                                                .markLabel = markLabel(spec),
                                                .atS = atS,
                                                .original = r.originalScenario,
                                                .branch = r.changed,
                                                .originalFrom = r.original,
                                                .originalS = r.originalS,
                                                .branchFrom = *r.branch,
                                                .before = std::move(before)},
                        running);
  Q_EMIT started();
  return {};
}

std::optional<BranchSpec> BranchController::branch() const {
  if (!m_compare.branch()) return std::nullopt;
  return m_spec;
}

const engine::Scenario& BranchController::branchScenario() const {
  return m_compare.branch() ? m_compare.branch()->branch : m_live.scenario();
}

QString BranchController::edit(const engine::Scenario& edited) {
  const auto& shown = m_compare.branch();
  if (!shown) return tr("no branch is shown");
  const BranchSpec spec{shown->atS, inOrderOf(m_spec.changes, scenarioChanges(m_base, edited))};
  command::BranchResult r = m_live.branchAt(spec.atS, spec.changes, false);
  if (!r.error.empty()) return QString::fromStdString(r.error);
  m_spec = spec;
  m_compare.rebranch(*r.branch, r.changed, branchRunName(spec), markLabel(spec));
  return {};
}

std::optional<SessionBranch> BranchController::capture() const {
  const auto spec = branch();
  if (!spec) return std::nullopt;
  return SessionBranch{.spec = *spec,
                       .originalS = std::max(spec->atS, m_compare.run(0).status().simTimeS),
                       .branchS = std::max(spec->atS, m_compare.run(1).status().simTimeS)};
}

void BranchController::restore(const SessionBranch& kept, bool running) {
  if (m_restoring) endRestore(tr("another session was opened"));
  // The session's run has just been loaded, paused: run it to where the original was, branch,
  // then run the branch to where it was.
  m_restoring = Restoring{.kept = kept, .running = running};
  m_live.runFor(kept.originalS);
  m_restoreStep = connect(&m_live, &LiveController::runForFinished, this,
                          &BranchController::restoreBranch, Qt::SingleShotConnection);
  m_restoreStopped = connect(&m_live, &LiveController::runningChanged, this,
                             &BranchController::checkRestoreStopped, Qt::QueuedConnection);
}

void BranchController::restoreBranch() {
  QObject::disconnect(m_restoreStopped);
  const SessionBranch kept = m_restoring->kept;
  const QString error = branchHere(kept.spec.atS, kept.spec.changes, false);
  if (!error.isEmpty()) {
    endRestore(error);
    return;
  }
  m_restoring->branched = true;
  LiveController& branchRun = m_compare.run(1);
  branchRun.runFor(kept.branchS);
  m_restoreStep = connect(
      &branchRun, &LiveController::runForFinished, this,
      [this] {
        if (m_restoring->running) m_compare.setRunning(true);
        endRestore({});
      },
      Qt::SingleShotConnection);
  m_restoreStopped = connect(&branchRun, &LiveController::runningChanged, this,
                             &BranchController::checkRestoreStopped, Qt::QueuedConnection);
}

LiveController& BranchController::restoringRun() const {
  return m_restoring && m_restoring->branched ? m_compare.run(1) : m_live;
}

void BranchController::checkRestoreStopped() {
  // Queued: a run that reached its time said so (runForFinished) in the same frame, and the
  // restore has moved on; one still short of it, and no longer running to it, was stopped.
  if (!m_restoring || restoringRun().isRunningFor()) return;
  cancelRestore();
}

std::optional<std::pair<double, double>> BranchController::restoreProgress() const {
  if (!m_restoring) return std::nullopt;
  const SessionBranch& kept = m_restoring->kept;
  const double total = kept.originalS + (kept.branchS - kept.spec.atS);
  if (!m_restoring->branched)
    return std::pair{std::min(m_live.status().simTimeS, kept.originalS), total};
  const double branchDone = std::clamp(m_compare.run(1).status().simTimeS - kept.spec.atS, 0.0,
                                       kept.branchS - kept.spec.atS);
  return std::pair{kept.originalS + branchDone, total};
}

void BranchController::cancelRestore() {
  if (!m_restoring) return;
  LiveController& run = restoringRun();
  const QString where = m_restoring->branched
                            ? tr("the branch stopped at %1 s of %2 s")
                            : tr("the run stopped at %1 s of %2 s, before the branch");
  const double target =
      m_restoring->branched ? m_restoring->kept.branchS : m_restoring->kept.originalS;
  // Stop first: a run paused where it is says nothing more (no runForFinished).
  QObject::disconnect(m_restoreStep);
  QObject::disconnect(m_restoreStopped);
  run.setRunning(false);
  endRestore(tr("cancelled: ") + where.arg(QString::number(run.status().simTimeS, 'f', 1),
                                           QString::number(target, 'f', 1)));
}

void BranchController::endRestore(const QString& error) {
  QObject::disconnect(m_restoreStep);
  QObject::disconnect(m_restoreStopped);
  m_restoring.reset();
  Q_EMIT restored(error);
}

QString BranchController::branchCsvPath(const QString& path) {
  const QFileInfo info(path);
  const QString suffix = info.suffix().isEmpty() ? QString() : QLatin1Char('.') + info.suffix();
  return info.dir().filePath(info.completeBaseName() + QStringLiteral("-branch") + suffix);
}

QString BranchController::exportTo(const QString& path, const ExportChoice& choice) const {
  const auto spec = branch();
  if (!spec) return tr("no branch is shown");
  const CompareView::BranchRuns& shown = *m_compare.branch();
  // What was drained last, drawn as the view shows it now.
  for (int i = 0; i < 2; ++i) m_compare.run(i).frame();
  m_compare.refresh();
  Exporter::View view{.frame = &m_compare,
                      .plot = [this](PlotId id) -> QCustomPlot* {
                        for (ComparePlot* p : m_compare.plots())
                          if (p->id() == id) return p->widget();
                        return m_compare.plots().front()->widget();
                      },
                      .theme = Theme::fromPalette(m_compare.palette(), m_compare.font(), false),
                      .events = m_compare.run(0).timeline(),
                      .timeRange = m_compare.plots().front()->timeRange(),
                      .caption = tr("%1 and %2").arg(shown.originalName, shown.branchName)};
  for (ComparePlot* p : m_compare.plots()) view.visible.push_back(p->id());
  if (choice.format != ExportFormat::CsvAll && choice.format != ExportFormat::CsvVisible)
    return Exporter(view, m_compare.run(0).history(), shown.original).exportAs(path, choice);
  // The original's rows as the dashboard's CSV has them, named as the original; the branch's
  // as the headless --branch-csv writes them.
  view.caption.clear();
  view.csvLines = "# run: original\n";
  const QString original =
      Exporter(view, m_compare.run(0).history(), shown.original).exportAs(path, choice);
  if (!original.isEmpty()) return original;
  view.events = m_compare.run(1).timeline();
  view.csvLines = branchCsvLines(shown.original.name, *spec);
  return Exporter(view, m_compare.run(1).history(), shown.branch)
      .exportAs(branchCsvPath(path), choice);
}

}  // namespace throttlelab::ui
