// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The figures a lesson quotes and checks (docs/lessons.md, Measured numbers): their names,
// which take a task group or a device, and their values over a step's run. Internal to the
// lesson reader; lesson.h has the public side.
#include <functional>
#include <string>
#include <string_view>

#include "throttlelab/engine/lesson.h"

namespace throttlelab::engine::lesson_detail {

/// Where a metric can be taken.
enum MetricScope : unsigned {
  kWhole = 1,   ///< without a qualifier: the whole run (or the first device)
  kGroup = 2,   ///< `:GROUP`, a task group (tasks[].name)
  kDevice = 4,  ///< `@DEVICE`, a device (devices[].name)
};

struct MetricDef {
  std::string_view name;
  std::string_view what;
  unsigned scopes = kWhole;
};

const MetricDef* findMetric(std::string_view name);
/// Every metric's name, comma-separated, for messages.
std::string metricNames();

/// Why `figure` cannot be measured in a step whose run is `scenario` (nullptr: the step has no
/// run, so groups and devices are not checked); empty when it can.
std::string figureProblem(const LessonFigure& figure, const Scenario* scenario);

/// Calls `f(figure)` for every `{placeholder}` of `text` and puts what it returns in its place;
/// `bad(reason)` (which must throw) for one that is malformed or names no metric.
std::string substitute(const std::string& text,
                       const std::function<std::string(const LessonFigure&)>& f,
                       const std::function<void(const std::string&)>& bad);

}  // namespace throttlelab::engine::lesson_detail
