// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Gathers what the trace importer (or the live recorder) produces into one value the window
/// can show: the converted Samples, the writers' per-pid figures for the task table, and the
/// TraceStats of every record for the measured side of "Simulate this trace". Runs on the
/// importing thread; the result crosses to the GUI as a value (ImportedTrace).
#include <QString>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sample_history.h"
#include "throttlelab/traceio/trace_import.h"
#include "throttlelab/traceio/trace_stats.h"

namespace throttlelab::ui {

/// One pid of a trace that called balance_dirty_pages (a row of the trace's task table).
struct TraceTaskRow {
  int pid = 0;
  QString comm;
  engine::Pages dirtiedPages = 0;  ///< sum of balance_dirty_pages `dirtied`
  double activeS = 0;              ///< first to last balance_dirty_pages record of this pid
  double rateKBps = 0;             ///< dirtiedPages · 4 / activeS (0 with one record)
  std::int64_t pauses = 0;         ///< records with pause > 0
  double pauseMsP50 = 0;           ///< over pause > 0
  double pauseMsMax = 0;
  double taskRatelimitKBps = 0;  ///< the last one traced
};

/// One quantity at event resolution (every record, not one value per interval), for drawing
/// the measured trace as it was. Bounded: when full, every second point is dropped and from
/// then on only every second one is kept, so memory does not grow with the file.
class EventPoints {
 public:
  static constexpr std::size_t kMaxPoints = 50000;
  void add(double timeS, double value);
  const std::vector<std::pair<double, double>>& points() const { return m_points; }
  bool empty() const { return m_points.empty(); }

 private:
  std::vector<std::pair<double, double>> m_points;
  std::size_t m_stride = 1;
  std::size_t m_seen = 0;
};

/// The measured quantities the real-kernel plots draw at event resolution. Times are seconds
/// since the trace's first event, like the Samples'.
struct TraceEvents {
  EventPoints dirtyPages;          ///< global_dirty_state dirty + writeback
  EventPoints pauseMs;             ///< balance_dirty_pages pause, when > 0
  EventPoints writeBwKBps;         ///< bdi_dirty_ratelimit write_bw
  EventPoints dirtyRatelimitKBps;  ///< bdi_dirty_ratelimit dirty_ratelimit
};

/// A whole imported (or recorded) trace, as the window keeps it.
struct ImportedTrace {
  QString source;  ///< file path, or "recorded on this machine"
  traceio::ImportStats stats;
  /// One per interval, t = 0 at the first event; a very long trace's older part is folded
  /// (SampleHistory), so this stays bounded too.
  std::vector<engine::Sample> samples;
  std::vector<TraceTaskRow> tasks;  ///< by pid
  int otherPids = 0;  ///< pids that never called balance_dirty_pages (flushers, light writers)
  std::vector<std::string> devices;      ///< bdi names in order of appearance
  traceio::TraceStats::Result measured;  ///< over every record
  TraceEvents events;
  bool recordedHere = false;  ///< recorded live on this machine
};

class TraceCollector final : public traceio::ImportSink {
 public:
  TraceCollector();

  void onDevice(int index, const std::string& name) override;
  void onSample(const engine::Sample& sample) override;
  void onRecord(const engine::TraceRecord& record) override;

  /// Keep the samples that arrive for takeNewSamples() (the live recorder streams them).
  void setStreaming(bool on) { m_streaming = on; }
  /// Samples that arrived since the last call.
  std::vector<engine::Sample> takeNewSamples();
  /// Everything so far; the per-pid figures are computed here.
  ImportedTrace result(const traceio::ImportStats& stats) const;

 private:
  struct Tally {
    std::string comm;
    engine::Pages dirtied = 0;
    double firstS = 0;
    double lastS = 0;
    std::int64_t pauses = 0;
    double taskRatelimitKBps = 0;
    /// pause (ms) → count; pauses are whole milliseconds, so this stays small.
    std::map<std::int64_t, std::int64_t> pauseHistogram;
  };

  traceio::TraceStats m_stats;
  TraceEvents m_events;
  std::optional<double> m_firstS;  ///< the first record's trace time: t = 0
  std::map<int, Tally> m_tallies;
  std::map<int, std::string> m_pids;  ///< every pid of any record, with its comm
  std::vector<std::string> m_devices;
  SampleHistory m_samples;
  std::vector<engine::Sample> m_pending;
  bool m_streaming = false;
};

}  // namespace throttlelab::ui
