// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Shared by the traceio tests: sinks that keep what the importer produces, and files.
#include <unistd.h>
#include <deque>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "file_text.h"
#include "throttlelab/engine/output.h"
#include "throttlelab/engine/simulator.h"
#include "throttlelab/traceio/trace_import.h"

namespace throttlelab::test {

namespace te = throttlelab::engine;
namespace ti = throttlelab::traceio;

/// Keeps every record (its bdi copied: the importer's points into its read buffer), task
/// and row.
class CollectSink : public ti::ImportSink {
 public:
  void onTask(const te::TaskInfo& info) override { tasks.push_back(info); }
  void onDevice(int index, const std::string& name) override {
    if (static_cast<std::size_t>(index) != devices.size()) deviceOrderBroken = true;
    devices.push_back(name);
  }
  void onSample(const te::Sample& s) override { samples.push_back(s); }
  void onTaskSample(const te::TaskSample& s) override { taskSamples.push_back(s); }
  void onRecord(const te::TraceRecord& r) override {
    te::TraceRecord copy = r;
    std::visit(
        [&](auto& rec) {
          using T = std::decay_t<decltype(rec)>;
          if constexpr (!std::is_same_v<T, te::GlobalDirtyState>) {
            m_names.emplace_back(rec.bdi);
            rec.bdi = m_names.back();
          }
        },
        copy);
    records.push_back(copy);
  }

  /// The two CSVs the command line writes, with the device count known at the end.
  std::string sampleCsv() const {
    std::ostringstream out;
    te::writeSampleCsvHeader(out, devices.size());
    for (const auto& s : samples) te::writeSampleCsvRow(out, s, devices.size());
    return out.str();
  }
  std::string taskCsv() const {
    std::ostringstream out;
    te::writeTaskCsvHeader(out);
    for (const auto& s : taskSamples)
      te::writeTaskCsvRow(out, s, tasks.at(static_cast<std::size_t>(s.task)));
    return out.str();
  }

  std::vector<te::TraceRecord> records;
  std::vector<te::TaskInfo> tasks;
  std::vector<std::string> devices;
  std::vector<te::Sample> samples;
  std::vector<te::TaskSample> taskSamples;
  bool deviceOrderBroken = false;

 private:
  std::deque<std::string> m_names;
};

/// Output options that produce the trace records only.
inline te::OutputOptions tracesOnly() {
  te::OutputOptions o;
  o.traces = true;
  return o;
}

inline std::filesystem::path dataDir() {
  return std::filesystem::path(THROTTLELAB_SOURCE_DIR) / "tests" / "data";
}

/// A directory of its own for one test, removed at the end.
class TempDir {
 public:
  TempDir() {
    m_path =
        std::filesystem::temp_directory_path() /
        ("throttlelab-traceio-" + std::to_string(::getpid()) + "-" + std::to_string(s_counter++));
    std::filesystem::remove_all(m_path);
    std::filesystem::create_directories(m_path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::filesystem::path operator/(const std::string& name) const { return m_path / name; }
  const std::filesystem::path& path() const { return m_path; }

 private:
  static inline int s_counter = 0;
  std::filesystem::path m_path;
};

}  // namespace throttlelab::test
