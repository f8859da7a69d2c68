// SPDX-License-Identifier: GPL-3.0-or-later
#include "experiment_job.h"

#include <QMetaObject>

namespace throttlelab::ui {

ExperimentJob::ExperimentJob(QObject* parent) : QObject(parent) {}

ExperimentJob::~ExperimentJob() {
  m_thread.request_stop();
  joinThread();
}

void ExperimentJob::joinThread() {
  if (m_thread.joinable()) m_thread.join();
}

bool ExperimentJob::start(const engine::Experiment& experiment, int seeds) {
  if (m_running) return false;
  joinThread();  // a finished run's thread may not have returned yet
  m_running = true;
  // Everything crosses back as a queued call on this object: dropped if it is gone by then
  // (the destructor joins first, so it cannot be gone while the thread runs).
  auto post = [this](auto&& fn) {
    QMetaObject::invokeMethod(this, std::forward<decltype(fn)>(fn), Qt::QueuedConnection);
  };
  m_thread = std::jthread([this, experiment, seeds, post](std::stop_token stop) {
    engine::ExperimentRunOptions options;
    options.seeds = seeds;
    options.stop = std::move(stop);
    options.progress = [this, post](std::size_t done, std::size_t total) {
      post([this, done, total] {
        if (m_running) Q_EMIT progress(static_cast<int>(done), static_cast<int>(total));
      });
    };
    try {
      auto result = std::make_shared<const engine::ExperimentResult>(
          engine::runExperiment(experiment, options));
      post([this, result] {
        m_running = false;
        Q_EMIT finished(result);
      });
    } catch (const engine::RunCancelled&) {
      post([this] {
        m_running = false;
        Q_EMIT cancelled();
      });
    } catch (const std::exception& e) {
      const QString message = QString::fromUtf8(e.what());
      post([this, message] {
        m_running = false;
        Q_EMIT failed(message);
      });
    }
  });
  return true;
}

void ExperimentJob::cancel() {
  m_thread.request_stop();
}

}  // namespace throttlelab::ui
