// SPDX-License-Identifier: GPL-3.0-or-later
#include "trace_import_job.h"

#include <QMetaObject>

namespace throttlelab::ui {

TraceImportJob::TraceImportJob(QObject* parent) : QObject(parent) {}

TraceImportJob::~TraceImportJob() {
  m_thread.request_stop();
  if (m_thread.joinable()) m_thread.join();
}

bool TraceImportJob::start(const QString& path) {
  if (m_running) return false;
  if (m_thread.joinable()) m_thread.join();  // a finished import's thread may still be returning
  m_running = true;
  // Results cross back as queued calls on this object; the destructor joins first, so the
  // object outlives the thread.
  auto post = [this](auto&& fn) {
    QMetaObject::invokeMethod(this, std::forward<decltype(fn)>(fn), Qt::QueuedConnection);
  };
  m_thread = std::jthread([this, path, post](std::stop_token stop) {
    TraceCollector collector;
    traceio::ImportOptions options;
    options.stop = stop;
    options.progress = [this, post](std::int64_t done, std::int64_t total) {
      post([this, done, total] {
        if (m_running) Q_EMIT progress(done, total);
      });
    };
    traceio::ImportResult result;
    try {
      result = traceio::importTrace(path.toStdString(), collector, options);
    } catch (const std::exception& e) {  // importTrace promises not to throw; be safe anyway
      result.error = e.what();
    }
    if (result.cancelled || stop.stop_requested()) {
      post([this] {
        m_running = false;
        Q_EMIT cancelled();
      });
      return;
    }
    if (!result.error.empty()) {
      const QString message = QString::fromStdString(result.error);
      post([this, message] {
        m_running = false;
        Q_EMIT failed(message);
      });
      return;
    }
    auto trace = std::make_shared<ImportedTrace>(collector.result(result.stats));
    trace->source = path;
    post([this, trace = std::shared_ptr<const ImportedTrace>(std::move(trace))] {
      m_running = false;
      Q_EMIT finished(trace);
    });
  });
  return true;
}

void TraceImportJob::cancel() {
  m_thread.request_stop();
}

}  // namespace throttlelab::ui
