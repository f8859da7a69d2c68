// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// One piece of work off the GUI thread, the way every job of the window runs: a std::jthread,
/// its std::stop_token as the only way to cancel (passed on to the engine's and traceio's long
/// calls), one "running" state kept on the GUI thread, and results delivered to the GUI thread
/// as queued calls on the owning QObject.
///
/// A job class owns a BackgroundJob as its last member, so the thread is stopped and joined
/// before anything it uses is destroyed; the owner's queued calls die with the owner.
#include <QObject>
#include <cstdint>
#include <functional>
#include <mutex>
#include <stop_token>
#include <thread>
#include <vector>

namespace throttlelab::ui {

class BackgroundJob final {
 public:
  /// What the work, on its thread, hands to the GUI thread.
  class Gui {
   public:
    /// Runs `fn` on the GUI thread if this run is still running then (progress, "started").
    void report(std::function<void()> fn) const;

   private:
    friend class BackgroundJob;
    Gui(BackgroundJob* job, std::uint64_t run) : m_job(job), m_run(run) {}
    BackgroundJob* m_job;
    std::uint64_t m_run;
  };
  /// The work; what it returns runs on the GUI thread once the run has ended (isRunning() is
  /// false by then). An exception it lets escape ends the run through the failure handler.
  using Work = std::function<std::function<void()>(std::stop_token stop, const Gui& gui)>;
  using FailureHandler = std::function<void(const QString& message)>;

  /// Results go to `owner`'s thread; `onFailure` (optional) gets an escaped exception's text.
  explicit BackgroundJob(QObject* owner, FailureHandler onFailure = {});
  ~BackgroundJob();  ///< stopAndWait()
  BackgroundJob(const BackgroundJob&) = delete;
  BackgroundJob& operator=(const BackgroundJob&) = delete;

  /// Starts `work` on a new thread; false if a run is in progress.
  bool start(Work work);
  bool isRunning() const { return m_running; }
  /// Asks the work to stop (its stop_token); the run ends when the work returns.
  void requestStop() { m_thread.request_stop(); }
  /// Asks the work to stop and waits for its thread. The run is over when this returns; its
  /// ending still arrives on the GUI thread as a queued call.
  void stopAndWait();

 private:
  void post(std::function<void()> fn);
  /// Runs, on the GUI thread, what the job thread posted so far.
  void runPosted();

  QObject* m_owner;
  FailureHandler m_onFailure;
  std::uint64_t m_run = 0;  ///< the current run's number (GUI thread only)
  bool m_running = false;   ///< GUI thread only
  /// What the job thread hands to the GUI thread, under a mutex ThreadSanitizer sees (Qt's
  /// queue is not instrumented); Qt's queued call only says there is something.
  std::mutex m_postedMutex;
  std::vector<std::function<void()>> m_posted;
  std::jthread m_thread;
};

}  // namespace throttlelab::ui
