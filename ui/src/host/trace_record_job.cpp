// SPDX-License-Identifier: GPL-3.0-or-later
#include "trace_record_job.h"

#include <QDir>
#include <chrono>
#include <string_view>

#include "throttlelab/traceio/trace_parser.h"

namespace throttlelab::ui {

namespace {
constexpr std::chrono::milliseconds kReadTimeout{100};

void count(traceio::ImportStats& stats, const traceio::ParsedLine& p) {
  ++stats.lines;
  switch (p.kind) {
    case traceio::LineKind::Event:
      ++stats.events;
      if (stats.format == traceio::TraceFormat::Unknown) stats.format = p.format;
      stats.countEventKind(p.record, p.missingFields);
      break;
    case traceio::LineKind::Other:
      ++stats.other;
      break;
    case traceio::LineKind::Comment:
      ++stats.comments;
      break;
    case traceio::LineKind::Malformed:
      ++stats.malformed;
      break;
    case traceio::LineKind::Garbage:
      ++stats.garbage;
      break;
  }
  if ((p.kind == traceio::LineKind::Malformed || p.kind == traceio::LineKind::Garbage) &&
      stats.problems.size() < traceio::ImportStats::kMaxProblems)
    stats.problems.push_back({stats.lines, traceio::problemText(p)});
}
}  // namespace

TraceRecordJob::TraceRecordJob(QObject* parent) : QObject(parent), m_job(this) {}

// m_job joins first: the recorder restores tracefs before the thread returns.
TraceRecordJob::~TraceRecordJob() = default;

bool TraceRecordJob::start(host::TraceRecorder::Options options) {
  if (m_job.isRunning()) return false;
  auto text = std::make_unique<QTemporaryFile>(
      QDir::temp().filePath(QStringLiteral("throttlelab-recording-XXXXXX.txt")));
  if (!text->open()) return false;
  text->write("# tracer: nop\n#\n");
  {
    const std::lock_guard lock(m_mutex);
    m_collector = std::make_unique<TraceCollector>();
    m_collector->setStreaming(true);
    m_stats = {};
    m_bytes = 0;
    m_textPath = text->fileName();
    m_text = std::move(text);
  }
  return m_job.start([this, options](std::stop_token stop, const BackgroundJob::Gui& gui) {
    return run(stop, gui, options);
  });
}

std::function<void()> TraceRecordJob::run(const std::stop_token& stop,
                                          const BackgroundJob::Gui& gui,
                                          host::TraceRecorder::Options options) {
  std::string problem;
  std::string restore;
  try {
    host::TraceRecorder recorder(std::move(options));
    problem = recorder.start();
    if (problem.empty()) {
      gui.report([this] { Q_EMIT started(); });
      traceio::TraceConverter converter(*m_collector);
      std::string chunk;
      while (!stop.stop_requested()) {
        chunk.clear();
        if (recorder.read(chunk, kReadTimeout) == 0) continue;
        m_text->write(chunk.data(), static_cast<qint64>(chunk.size()));
        m_text->flush();
        const std::lock_guard lock(m_mutex);
        m_bytes += static_cast<std::int64_t>(chunk.size());
        std::string_view rest(chunk);
        while (!rest.empty()) {
          const std::size_t end = rest.find('\n');
          const std::string_view line = rest.substr(0, end);
          rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
          const traceio::ParsedLine parsed = traceio::parseTraceLine(line);
          count(m_stats, parsed);
          if (parsed.kind != traceio::LineKind::Event) continue;
          const double t = engine::toSeconds(
              std::visit([](const auto& r) { return r.header.time; }, parsed.record));
          if (m_stats.events == 1) m_stats.firstTimeS = t;
          m_stats.lastTimeS = t;
          m_collector->onRecord(parsed.record);
          converter.add(parsed.record);
        }
        m_stats.tasks = converter.taskCount();
        m_stats.devices = converter.deviceNames();
        m_stats.gapsSkipped = converter.gapsSkipped();
        m_stats.gapsSkippedS = converter.gapsSkippedS();
        m_stats.devicesWithoutColumns = converter.devicesWithoutColumns();
      }
      {
        const std::lock_guard lock(m_mutex);
        converter.finish();
      }
    }
    restore = recorder.stop();  // also what the destructor would do; say what it reports
  } catch (const std::exception& e) {
    // The recorder's destructor has restored tracefs by the time we get here.
    problem = e.what();
  }
  return
      [this, problem = QString::fromStdString(problem), restore = QString::fromStdString(restore)] {
        if (!problem.isEmpty()) Q_EMIT failed(problem);
        Q_EMIT stopped(restore);
      };
}

// The thread's last queued call still reports stopped().
void TraceRecordJob::stop() {
  m_job.stopAndWait();
}

std::vector<engine::Sample> TraceRecordJob::takeSamples() {
  const std::lock_guard lock(m_mutex);
  return m_collector ? m_collector->takeNewSamples() : std::vector<engine::Sample>{};
}

std::shared_ptr<const ImportedTrace> TraceRecordJob::snapshot() const {
  const std::lock_guard lock(m_mutex);
  if (!m_collector) return nullptr;
  auto trace = std::make_shared<ImportedTrace>(m_collector->result(m_stats));
  trace->stats.bytes = m_bytes;
  trace->source = m_textPath;
  trace->recordedHere = true;
  return trace;
}

QString TraceRecordJob::textPath() const {
  const std::lock_guard lock(m_mutex);
  return m_textPath;
}

std::optional<double> TraceRecordJob::firstEventTimeS() const {
  const std::lock_guard lock(m_mutex);
  if (m_stats.events == 0) return std::nullopt;
  return m_stats.firstTimeS;
}

std::int64_t TraceRecordJob::bytesRecorded() const {
  const std::lock_guard lock(m_mutex);
  return m_bytes;
}

}  // namespace throttlelab::ui
