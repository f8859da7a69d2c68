// SPDX-License-Identifier: GPL-3.0-or-later
#include "background_job.h"

#include <QMetaObject>
#include <QString>
#include <exception>

namespace throttlelab::ui {

void BackgroundJob::Gui::report(std::function<void()> fn) const {
  m_job->post([job = m_job, run = m_run, fn = std::move(fn)] {
    if (job->m_running && job->m_run == run) fn();
  });
}

BackgroundJob::BackgroundJob(QObject* owner, FailureHandler onFailure)
    : m_owner(owner), m_onFailure(std::move(onFailure)) {}

BackgroundJob::~BackgroundJob() {
  stopAndWait();
}

void BackgroundJob::post(std::function<void()> fn) {
  // The function goes through our own mutex, so that its making on this thread is seen to
  // happen before its running on the GUI thread (through Qt's queue alone, ThreadSanitizer
  // reported the function's storage as a race under load). The queued call is dropped if the
  // owner is gone by then; the owner outlives the thread (this object joins it first).
  {
    const std::lock_guard lock(m_postedMutex);
    m_posted.push_back(std::move(fn));
  }
  QMetaObject::invokeMethod(
      m_owner, [this] { runPosted(); }, Qt::QueuedConnection);
}

void BackgroundJob::runPosted() {
  std::vector<std::function<void()>> ready;
  {
    const std::lock_guard lock(m_postedMutex);
    ready.swap(m_posted);
  }
  for (auto& fn : ready) fn();
}

bool BackgroundJob::start(Work work) {
  if (m_running) return false;
  if (m_thread.joinable()) m_thread.join();  // a finished run's thread may still be returning
  const std::uint64_t run = ++m_run;
  m_running = true;
  m_thread = std::jthread([this, run, work = std::move(work)](std::stop_token stop) {
    std::function<void()> done;
    try {
      done = work(stop, Gui(this, run));
    } catch (const std::exception& e) {
      if (m_onFailure)
        done = [onFailure = m_onFailure, message = QString::fromUtf8(e.what())] {
          onFailure(message);
        };
    }
    post([this, run, done = std::move(done)] {
      if (m_run == run) m_running = false;
      if (done) done();
    });
  });
  return true;
}

void BackgroundJob::stopAndWait() {
  if (!m_thread.joinable()) return;
  m_thread.request_stop();
  m_thread.join();
  m_running = false;
}

}  // namespace throttlelab::ui
