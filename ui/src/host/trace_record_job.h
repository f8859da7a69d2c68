// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Records the writeback tracepoints of this machine live (root only) on a worker thread:
/// host::TraceRecorder streams trace_pipe, each line goes through traceio::parseTraceLine and a
/// TraceConverter into a TraceCollector, and the raw text is appended to a temporary file so
/// it can be saved later without holding it in memory. stop() (also run by the destructor)
/// ends the thread, whose TraceRecorder::stop() puts tracefs back exactly as it was found.
#include <QObject>
#include <QString>
#include <QTemporaryFile>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "background_job.h"
#include "throttlelab/host/trace_recorder.h"
#include "trace_collector.h"

namespace throttlelab::ui {

class TraceRecordJob final : public QObject {
  Q_OBJECT

 public:
  explicit TraceRecordJob(QObject* parent = nullptr);
  ~TraceRecordJob() override;

  /// Starts recording; false if one is running or no temporary file could be made.
  bool start(host::TraceRecorder::Options options = {});
  /// Stops and waits for tracefs to be restored (emits stopped()). Idempotent.
  void stop();
  bool isRunning() const { return m_job.isRunning(); }

  /// Samples converted since the last call (times: seconds since the first event).
  std::vector<engine::Sample> takeSamples();
  /// Everything recorded so far, as an imported trace.
  std::shared_ptr<const ImportedTrace> snapshot() const;
  /// The raw ftrace text recorded so far (a temporary file; empty path before start()).
  QString textPath() const;
  std::int64_t bytesRecorded() const;
  /// The trace timestamp of the first event (seconds since boot on ftrace's local clock).
  std::optional<double> firstEventTimeS() const;

 Q_SIGNALS:
  void started();
  /// The recorder could not start or failed while reading; tracefs has been restored.
  void failed(const QString& message);
  /// Recording ended; `restoreProblem` is empty when tracefs is exactly as it was found.
  void stopped(const QString& restoreProblem);

 private:
  std::function<void()> run(const std::stop_token& stop, const BackgroundJob::Gui& gui,
                            host::TraceRecorder::Options options);

  mutable std::mutex m_mutex;  ///< guards the collector, the stats and the byte count
  std::unique_ptr<TraceCollector> m_collector;
  traceio::ImportStats m_stats;
  std::int64_t m_bytes = 0;
  std::unique_ptr<QTemporaryFile> m_text;  ///< written by the thread only, while it runs
  QString m_textPath;
  BackgroundJob m_job;  ///< last: stops and joins (tracefs restored) before the rest is destroyed
};

}  // namespace throttlelab::ui
