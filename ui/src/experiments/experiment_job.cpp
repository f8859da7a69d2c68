// SPDX-License-Identifier: GPL-3.0-or-later
#include "experiment_job.h"

namespace throttlelab::ui {

ExperimentJob::ExperimentJob(QObject* parent)
    : QObject(parent), m_job(this, [this](const QString& message) { Q_EMIT failed(message); }) {}

ExperimentJob::~ExperimentJob() = default;

bool ExperimentJob::start(const engine::Experiment& experiment, int seeds) {
  return m_job.start(
      [this, experiment, seeds](std::stop_token stop,
                                const BackgroundJob::Gui& gui) -> std::function<void()> {
        engine::ExperimentRunOptions options;
        options.seeds = seeds;
        options.stop = std::move(stop);
        options.progress = [this, &gui](std::size_t done, std::size_t total) {
          gui.report([this, done, total] {
            Q_EMIT progress(static_cast<int>(done), static_cast<int>(total));
          });
        };
        try {
          auto result = std::make_shared<const engine::ExperimentResult>(
              engine::runExperiment(experiment, options));
          return [this, result] { Q_EMIT finished(result); };
        } catch (const engine::RunCancelled&) {
          return [this] { Q_EMIT cancelled(); };
        }
      });
}

void ExperimentJob::cancel() {
  m_job.requestStop();
}

}  // namespace throttlelab::ui
