// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Imports a kernel trace file off the GUI thread (traceio::importTrace streams it in blocks,
/// so memory does not grow with the file) and delivers the whole ImportedTrace as one value on
/// the GUI thread. Nothing reaches the window before the import finished: a cancelled or
/// failed import leaves no partial state behind. Destroying a running job cancels it and
/// waits for its thread.
#include <QObject>
#include <QString>
#include <cstdint>
#include <memory>
#include <optional>

#include "background_job.h"
#include "trace_collector.h"

namespace throttlelab::ui {

class TraceImportJob final : public QObject {
  Q_OBJECT

 public:
  explicit TraceImportJob(QObject* parent = nullptr);
  ~TraceImportJob() override;

  /// Starts importing `path` (only one memory cgroup's records with `cgroupIno`:
  /// traceio::ImportOptions::cgroupIno); false if an import is already running.
  bool start(const QString& path, std::optional<std::uint64_t> cgroupIno = std::nullopt);
  void cancel();
  bool isRunning() const { return m_job.isRunning(); }

 Q_SIGNALS:
  /// Bytes read so far and the file size (0 if unknown).
  void progress(qint64 done, qint64 total);
  void finished(std::shared_ptr<const throttlelab::ui::ImportedTrace> trace);
  void cancelled();
  /// ImportResult::error: the file cannot be read, or holds no writeback event.
  void failed(const QString& message);

 private:
  BackgroundJob m_job;  ///< last: stops and joins before the rest is destroyed
};

}  // namespace throttlelab::ui
