// SPDX-License-Identifier: GPL-3.0-or-later
#include "trace_import_job.h"

namespace throttlelab::ui {

TraceImportJob::TraceImportJob(QObject* parent)
    : QObject(parent), m_job(this, [this](const QString& message) { Q_EMIT failed(message); }) {}

TraceImportJob::~TraceImportJob() = default;

bool TraceImportJob::start(const QString& path, std::optional<std::uint64_t> cgroupIno) {
  return m_job.start(
      [this, path, cgroupIno](std::stop_token stop,
                              const BackgroundJob::Gui& gui) -> std::function<void()> {
        TraceCollector collector;
        traceio::ImportOptions options;
        options.stop = stop;
        options.cgroupIno = cgroupIno;
        options.progress = [this, &gui](std::int64_t done, std::int64_t total) {
          gui.report([this, done, total] { Q_EMIT progress(done, total); });
        };
        // importTrace promises not to throw; one that does still ends as failed().
        const traceio::ImportResult result =
            traceio::importTrace(path.toStdString(), collector, options);
        if (result.cancelled || stop.stop_requested()) return [this] { Q_EMIT cancelled(); };
        if (!result.error.empty())
          return [this, message = QString::fromStdString(result.error)] { Q_EMIT failed(message); };
        auto trace = std::make_shared<ImportedTrace>(collector.result(result.stats));
        trace->source = path;
        return [this, trace = std::shared_ptr<const ImportedTrace>(std::move(trace))] {
          Q_EMIT finished(trace);
        };
      });
}

void TraceImportJob::cancel() {
  m_job.requestStop();
}

}  // namespace throttlelab::ui
