// SPDX-License-Identifier: GPL-3.0-or-later
#include "task_table_model.h"

#include <iterator>

#include <QColor>

#include "display_units.h"
#include "throttlelab/engine/events.h"
#include "throttlelab/engine/simulator.h"
#include "tool_tip_text.h"

namespace throttlelab::ui {

namespace {
QString schedText(const engine::TaskInfo& info) {
  switch (info.sched) {
    case engine::SchedClass::Fifo:
      return QStringLiteral("FIFO %1").arg(info.rtPriority);
    case engine::SchedClass::RoundRobin:
      return QStringLiteral("RR %1").arg(info.rtPriority);
    case engine::SchedClass::Other:
      break;
  }
  return QStringLiteral("OTHER nice %1").arg(info.nice);
}

// Real-time tasks sort above every normal one, higher priority first.
double schedSortKey(const engine::TaskInfo& info) {
  if (info.sched == engine::SchedClass::Other) return -info.nice;
  return 100.0 + info.rtPriority;
}
}  // namespace

TaskTableModel::TaskTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void TaskTableModel::setSnapshot(std::shared_ptr<const WorkerSnapshot> snapshot) {
  if (!snapshot) {
    clear();
    return;
  }
  const bool sameSet =
      m_snapshot && m_snapshot->tasks.size() == snapshot->tasks.size() &&
      std::equal(m_snapshot->tasks.begin(), m_snapshot->tasks.end(), snapshot->tasks.begin(),
                 [](const auto& a, const auto& b) { return a.info.index == b.info.index; });
  if (sameSet) {
    m_snapshot = std::move(snapshot);
    if (!m_snapshot->tasks.empty())
      Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    return;
  }
  beginResetModel();
  m_snapshot = std::move(snapshot);
  endResetModel();
}

void TaskTableModel::clear() {
  beginResetModel();
  m_snapshot.reset();
  endResetModel();
}

int TaskTableModel::rowOfTask(int taskIndex) const {
  if (!m_snapshot) return -1;
  const auto& tasks = m_snapshot->tasks;
  // Rows are usually in task-index order; check that guess before searching.
  if (taskIndex >= 0 && static_cast<std::size_t>(taskIndex) < tasks.size() &&
      tasks[static_cast<std::size_t>(taskIndex)].info.index == taskIndex)
    return taskIndex;
  for (std::size_t i = 0; i < tasks.size(); ++i)
    if (tasks[i].info.index == taskIndex) return static_cast<int>(i);
  return -1;
}

int TaskTableModel::taskAt(int r) const {
  if (r < 0 || r >= rowCount()) return -1;
  return row(r).info.index;
}

int TaskTableModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() || !m_snapshot) return 0;
  return static_cast<int>(m_snapshot->tasks.size());
}

int TaskTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant TaskTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const engine::TaskStats& t = row(index.row());
  if (role == kTaskIndexRole) return t.info.index;
  if (role == Qt::TextAlignmentRole)
    return index.column() <= State ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                   : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  const bool sort = role == kSortRole;
  if (!sort && role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
  switch (index.column()) {
    case Name:
      return QString::fromStdString(t.info.name);
    case Pid:
      return t.info.pid;
    case Sched:
      return sort ? QVariant(schedSortKey(t.info)) : QVariant(schedText(t.info));
    case Cgroup: {
      // The root cgroup is "/"; a cgroup the policy's kernel predates is marked as ignored.
      const auto& cgroups = m_snapshot->scenario.cgroups;
      if (t.info.cgroup < 0 || static_cast<std::size_t>(t.info.cgroup) >= cgroups.size())
        return QStringLiteral("/");
      const QString name =
          QString::fromStdString(cgroups[static_cast<std::size_t>(t.info.cgroup)].name);
      if (engine::Simulator::policyHasCgroups(m_snapshot->scenario.policy)) return name;
      return sort ? name : tr("%1 (ignored before 4.2)").arg(name);
    }
    case State:
      return sort ? QVariant(static_cast<int>(t.state))
                  : QVariant(QString::fromUtf8(
                        engine::toString(t.state).data(),
                        static_cast<qsizetype>(engine::toString(t.state).size())));
    case WriteMBps: {
      const double v = kbpsToMBps(t.writeKBps);
      return sort ? QVariant(v) : QVariant(QString::number(v, 'f', 2));
    }
    case DirtiedMiB: {
      const double v = engine::pagesToMiB(static_cast<double>(t.dirtiedPages));
      return sort ? QVariant(v) : QVariant(QString::number(v, 'f', 1));
    }
    case PauseP50:
      return sort ? QVariant(t.pauseMsP50) : QVariant(QString::number(t.pauseMsP50, 'f', 1));
    case PauseP99:
      return sort ? QVariant(t.pauseMsP99) : QVariant(QString::number(t.pauseMsP99, 'f', 1));
    case PauseMax:
      return sort ? QVariant(t.pauseMsMax) : QVariant(QString::number(t.pauseMsMax, 'f', 1));
    case TaskRatelimit: {
      // Policies without position control compute none: a dash, not a stale number.
      if (!engine::policyHasPositionControl(m_snapshot->scenario.policy))
        return sort ? QVariant(-1.0) : QVariant(QStringLiteral("—"));
      const double v = kbpsToMBps(t.taskRatelimitKBps);
      return sort ? QVariant(v) : QVariant(QString::number(v, 'f', 2));
    }
    case JournalWait:
      return sort ? QVariant(t.journalWaitS) : QVariant(QString::number(t.journalWaitS, 'f', 2));
    case ReadMax:
      return sort ? QVariant(t.readMsMax) : QVariant(QString::number(t.readMsMax, 'f', 1));
    default:
      return {};
  }
}

QVariant TaskTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  // A column's title and header tooltip (none where the title says it all), by Column.
  struct ColumnHeader {
    const char* title;
    const char* toolTip;
  };
  static constexpr const char* kPauses =
      QT_TR_NOOP("Pauses in balance_dirty_pages(), milliseconds");
  static constexpr ColumnHeader kHeaders[] = {
      {QT_TR_NOOP("Task"), nullptr},
      {QT_TR_NOOP("PID"), nullptr},
      {QT_TR_NOOP("Policy / prio"), nullptr},
      {QT_TR_NOOP("Cgroup"),
       QT_TR_NOOP("The task's memory cgroup (/ = the root). Since 4.2 a writer in a cgroup is "
                  "also throttled against the cgroup's own dirty limits; older policies "
                  "ignore cgroups")},
      {QT_TR_NOOP("State"), nullptr},
      {QT_TR_NOOP("MB/s"), QT_TR_NOOP("Pages dirtied over the last simulated second, MB/s")},
      {QT_TR_NOOP("Dirtied MiB"), QT_TR_NOOP("Pages dirtied since the task started, MiB")},
      {QT_TR_NOOP("Pause p50 ms"), kPauses},
      {QT_TR_NOOP("p99 ms"), kPauses},
      {QT_TR_NOOP("max ms"), kPauses},
      {QT_TR_NOOP("task_ratelimit MB/s"),
       QT_TR_NOOP("task_ratelimit = dirty_ratelimit × pos_ratio, MB/s")},
      {QT_TR_NOOP("Journal s"),
       QT_TR_NOOP("Time waiting for the journal (an atime update while a commit writes the "
                  "inode's block, or fsync's commit), seconds")},
      {QT_TR_NOOP("Read max ms"),
       QT_TR_NOOP("Longest uncached read, queueing behind writeback included, milliseconds")},
  };
  static_assert(std::size(kHeaders) == ColumnCount);
  if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
  const ColumnHeader& h = kHeaders[section];
  if (role == Qt::DisplayRole) return tr(h.title);
  if (role == Qt::ToolTipRole && h.toolTip) return wrappingToolTip(tr(h.toolTip));
  return {};
}

}  // namespace throttlelab::ui
