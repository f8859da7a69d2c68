// SPDX-License-Identifier: GPL-3.0-or-later
// Command-line parsing: one table of options drives the parser, the checks of which mode an
// option belongs to, and the suggestions for misspelt options.
#include "cli_options.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "throttlelab/engine/compare.h"
#include "throttlelab/engine/explain.h"
#include "throttlelab/engine/snapshot_store.h"
#include "throttlelab/engine/spelling.h"

namespace throttlelab::cli {

namespace {

// Report: --seeds and --report, which belong to --compare or --experiment (--report also to
// --import-trace --simulate). Import and Record: the kernel-trace options.
// Branch: the options of a branched headless run.
enum class Scope { Any, Headless, Window, Report, Experiment, Import, Record, Branch };

struct OptionSpec {
  std::string_view name;
  bool takesValue;
  Scope scope;
};

constexpr std::array kOptions{
    OptionSpec{"--help", false, Scope::Any},
    OptionSpec{"--version", false, Scope::Any},
    OptionSpec{"--headless", false, Scope::Any},
    OptionSpec{"--list-scenarios", false, Scope::Any},
    OptionSpec{"--list-lessons", false, Scope::Any},
    OptionSpec{"--list-policies", false, Scope::Any},
    OptionSpec{"--lesson", true, Scope::Any},
    OptionSpec{"--step", true, Scope::Any},
    OptionSpec{"--check", false, Scope::Headless},
    OptionSpec{"--scenario", true, Scope::Any},
    OptionSpec{"--duration", true, Scope::Any},
    OptionSpec{"--seed", true, Scope::Any},
    OptionSpec{"--policy", true, Scope::Any},
    OptionSpec{"--set", true, Scope::Any},
    OptionSpec{"--csv", true, Scope::Headless},
    OptionSpec{"--task-csv", true, Scope::Headless},
    OptionSpec{"--trace-out", true, Scope::Headless},
    OptionSpec{"--summary", false, Scope::Headless},
    OptionSpec{"--explain", true, Scope::Any},
    OptionSpec{"--compare", true, Scope::Headless},
    OptionSpec{"--branch-at", true, Scope::Any},
    OptionSpec{"--branch-set", true, Scope::Branch},
    OptionSpec{"--branch-csv", true, Scope::Branch},
    OptionSpec{"--experiment", true, Scope::Experiment},
    OptionSpec{"--seeds", true, Scope::Report},
    OptionSpec{"--report", true, Scope::Report},
    OptionSpec{"--quick", false, Scope::Experiment},
    OptionSpec{"--import-trace", true, Scope::Import},
    OptionSpec{"--simulate", false, Scope::Import},
    OptionSpec{"--this-host", false, Scope::Import},
    OptionSpec{"--trace-cgroup", true, Scope::Import},
    OptionSpec{"--record-trace", true, Scope::Record},
    OptionSpec{"--run-for", true, Scope::Window},
    OptionSpec{"--export-png", true, Scope::Window},
    OptionSpec{"--export-svg", true, Scope::Window},
    OptionSpec{"--export-pdf", true, Scope::Window},
    OptionSpec{"--export-csv", true, Scope::Window},
    OptionSpec{"--session", true, Scope::Window},
    OptionSpec{"--quit", false, Scope::Window},
    OptionSpec{"--presenter", false, Scope::Window},
    OptionSpec{"--unanswered", false, Scope::Window},
    OptionSpec{"--open-trace", true, Scope::Window},
    OptionSpec{"--watch-host", false, Scope::Window},
    OptionSpec{"--watch-cgroup", true, Scope::Window},
    OptionSpec{"--snapshot-budget", true, Scope::Window},
};

// QGuiApplication's own options: the window passes argv to Qt, so these must get through.
constexpr std::array<std::string_view, 11> kQtOptionsWithValue{
    "-platform",   "-platformpluginpath", "-platformtheme", "-plugin",      "-style",
    "-stylesheet", "-qwindowgeometry",    "-qwindowtitle",  "-qwindowicon", "-display",
    "-geometry"};
constexpr std::array<std::string_view, 2> kQtFlags{"-reverse", "-widgetcount"};

constexpr int kMaxSeeds = 1000;
constexpr int kMaxSnapshotBudgetMiB = 1 << 20;  // 1 TiB

std::string unknownOption(std::string_view arg) {
  std::string message = "unknown option '" + std::string(arg) + "'";
  std::vector<std::string_view> names;
  for (const auto& o : kOptions) names.push_back(o.name);
  if (const auto best = engine::closestName(arg, names))
    message += " (did you mean '" + std::string(names[*best]) + "'?)";
  return message;
}

std::optional<double> parsePositiveSeconds(const std::string& text) {
  double v = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || r.ec != std::errc{} || r.ptr != text.data() + text.size())
    return std::nullopt;
  if (!std::isfinite(v) || v <= 0) return std::nullopt;
  return v;
}

/// The whole of `text` as an integer of type T; nullopt for anything else (a sign where T is
/// unsigned, a number out of T's range, trailing characters).
template <typename T>
std::optional<T> wholeNumber(const std::string& text) {
  T v{};
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc{} || r.ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

/// KEY=VALUE of --set and --branch-set, split at the first '='; nullopt without a KEY.
std::optional<engine::Override> keyValue(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) return std::nullopt;
  return engine::Override{text.substr(0, eq), text.substr(eq + 1)};
}

/// The comma-separated names of --compare, empty ones kept (the check names them).
std::vector<std::string> commaList(const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  for (;;) {
    const auto comma = text.find(',', start);
    items.push_back(
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

std::string jsonString(std::string_view s) {
  // `replace`: a name that is not UTF-8 becomes one that the scenario's checks then refuse.
  return nlohmann::json(std::string(s))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

CliError secondsNeeded(const std::string& option, const std::string& value) {
  return CliError{option + " needs a number of seconds greater than 0, got '" + value + "'"};
}

std::string shortestNumber(double v) {
  std::array<char, 32> buf{};
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  return std::string(buf.data(), r.ptr);
}

class Parser {
 public:
  std::variant<CliOptions, CliError> parse(const std::vector<std::string>& args) {
    // --help and --version answer whatever else is on the line, as most tools do.
    CliOptions answer;
    answer.mode = Mode::Help;
    for (const auto& a : args)
      if (a == "--help" || a == "-h") return answer;
    answer.mode = Mode::Version;
    for (const auto& a : args)
      if (a == "--version") return answer;

    std::vector<std::string> positional;
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::string& arg = args[i];
      if (arg == "--") {
        positional.insert(positional.end(), args.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                          args.end());
        break;
      }
      if (arg.size() > 2 && arg.compare(0, 2, "--") == 0) {
        if (auto e = option(args, i)) return *e;
        continue;
      }
      if (arg.size() > 1 && arg[0] == '-') {
        if (auto e = qtOption(args, i)) return *e;
        continue;
      }
      positional.push_back(arg);
    }

    if (!positional.empty()) {
      if (positional.size() > 1 || !m_options.scenario.empty())
        return CliError{"unexpected argument '" + positional.back() +
                        "' (give one scenario, with --scenario or alone)"};
      m_options.scenario = positional.front();
    }
    if (m_listScenarios) {
      m_options.mode = Mode::ListScenarios;
      return m_options;
    }
    if (m_listLessons) {
      m_options.mode = Mode::ListLessons;
      return m_options;
    }
    if (m_listPolicies) {
      m_options.mode = Mode::ListPolicies;
      return m_options;
    }
    if (m_options.lessonCheck && (m_options.lesson.empty() || m_options.mode != Mode::Headless))
      return CliError{"--check belongs to --headless --lesson NAME|FILE"};
    if (m_options.lessonUnanswered && m_options.lesson.empty())
      return CliError{"--unanswered belongs to --lesson NAME|FILE (with an export)"};
    if (!m_options.lesson.empty() || m_options.lessonStep) {
      if (auto e = lessonProblem(positional)) return *e;
    }
    if (!m_options.importTrace.empty()) return importMode(positional);
    if (!m_options.recordTrace.empty()) return recordMode(positional);
    if (!m_options.experiment.empty()) return experimentMode(positional);
    const bool headless = m_options.mode == Mode::Headless;
    const bool comparing = !m_options.comparePolicies.empty();
    const bool branching = m_options.branching();
    for (const auto& [name, scope] : m_given) {
      if (scope == Scope::Branch && !branching)
        return CliError{std::string(name) + " belongs to --branch-at SECONDS (with --headless)"};
      if (branching && name == "--compare")
        return CliError{
            "--compare cannot be combined with --branch-at, which compares the run with its "
            "branch (--report)"};
      if (branching && name == "--seeds")
        return CliError{"--seeds belongs to --compare; a branched run has one seed"};
      if (branching && !headless && (name == "--report" || name == "--branch-csv"))
        return CliError{std::string(name) +
                        " writes the branch of a headless --branch-at run; add --headless (in "
                        "the window, --export-csv writes both runs)"};
      if (branching && name == "--report") continue;
      if (scope == Scope::Experiment)
        return CliError{std::string(name) + " belongs to --experiment NAME"};
      if (name == "--trace-cgroup" && !m_options.openTrace.empty() && !headless) continue;
      if (scope == Scope::Import)
        return CliError{std::string(name) + (name == "--this-host"
                                                 ? " belongs to --import-trace FILE --simulate"
                                             : name == "--trace-cgroup"
                                                 ? " needs --import-trace FILE or --open-trace FILE"
                                                 : " needs --import-trace FILE")};
      if (scope == Scope::Report && !comparing)
        return CliError{std::string(name) +
                        " belongs to --compare (with --headless) or --experiment NAME"};
      if (comparing && (name == "--policy" || name == "--csv" || name == "--task-csv" ||
                        name == "--trace-out" || name == "--summary" || name == "--explain"))
        return CliError{std::string(name) +
                        " cannot be combined with --compare, which runs the scenario once per "
                        "policy and seed and writes one report (--report)"};
      if (headless && scope == Scope::Window)
        return CliError{std::string(name) +
                        " belongs to the window; it cannot be combined with "
                        "--headless"};
      if (!headless && scope == Scope::Headless)
        return CliError{std::string(name) + " writes the output of a headless run; add --headless"};
    }
    if (!headless && !m_options.explain.empty() &&
        (!m_options.runForS || m_options.exportPng.empty()))
      return CliError{
          "--explain needs --headless, or in the window --run-for S and --export-png "
          "FILE (the figure is then the whole window with the explain panel)"};
    if (headless)
      if (auto refused = qtOptionsRefused("--headless")) return *refused;
    if (branching && m_options.branchOverrides.empty())
      return CliError{
          "--branch-at needs at least one --branch-set KEY=VALUE: the change the branch makes"};
    if (branching && !headless && !(m_options.runForS && *m_options.runForS > *m_options.branchAtS))
      return CliError{
          "--branch-at in the window needs --run-for S later than it: the run goes to S, "
          "branches at --branch-at, and the exports show both futures at S"};
    if (branching && !headless && !m_options.explain.empty())
      return CliError{"--explain and --branch-at cannot be combined"};
    if (branching && headless && m_options.branchCsv.empty() && m_options.report.empty())
      return CliError{
          "--branch-at needs --branch-csv FILE or --report FILE: where the branch's run goes"};
    return m_options;
  }

 private:
  std::optional<CliError> option(const std::vector<std::string>& args, std::size_t& i) {
    const std::string& arg = args[i];
    const auto eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    const auto spec = std::find_if(kOptions.begin(), kOptions.end(),
                                   [&](const OptionSpec& o) { return o.name == name; });
    if (spec == kOptions.end()) return CliError{unknownOption(name)};

    std::string value;
    if (eq != std::string::npos) {
      if (!spec->takesValue) return CliError{name + " takes no value"};
      value = arg.substr(eq + 1);
    } else if (spec->takesValue) {
      // "-" alone is a value (standard output); another --option means the value is missing.
      if (i + 1 >= args.size() || (args[i + 1].size() > 1 && args[i + 1].compare(0, 2, "--") == 0))
        return CliError{"missing value for " + name};
      value = args[++i];
    }
    if (spec->takesValue && value.empty()) return CliError{"empty value for " + name};

    if (name != "--set" && name != "--branch-set") {
      if (std::any_of(m_given.begin(), m_given.end(),
                      [&](const auto& g) { return g.first == spec->name; }))
        return CliError{name + " is given more than once"};
    }
    m_given.emplace_back(spec->name, spec->scope);
    return spec->scope == Scope::Window ? applyWindowOption(name, value) : apply(name, value);
  }

  // Sets what a command-line option says; the window's options, a group of their own in
  // kOptions, in applyWindowOption().
  std::optional<CliError> apply(const std::string& name, const std::string& value) {
    CliOptions& o = m_options;
    if (name == "--headless") {
      o.mode = Mode::Headless;
    } else if (name == "--list-scenarios") {
      m_listScenarios = true;
    } else if (name == "--list-lessons") {
      m_listLessons = true;
    } else if (name == "--list-policies") {
      m_listPolicies = true;
    } else if (name == "--lesson") {
      o.lesson = value;
    } else if (name == "--check") {
      o.lessonCheck = true;
    } else if (name == "--step") {
      const auto k = wholeNumber<int>(value);
      if (!k || *k < 1) return CliError{"--step needs a step number from 1, got '" + value + "'"};
      o.lessonStep = *k;
    } else if (name == "--scenario") {
      o.scenario = value;
    } else if (name == "--duration") {
      const auto s = parsePositiveSeconds(value);
      if (!s) return secondsNeeded(name, value);
      o.durationS = s;
    } else if (name == "--seed") {
      const auto seed = wholeNumber<std::uint64_t>(value);
      if (!seed) return CliError{"--seed needs an unsigned 64-bit integer, got '" + value + "'"};
      o.seed = seed;
    } else if (name == "--policy") {
      o.policy = value;
    } else if (name == "--set") {
      const auto change = keyValue(value);
      if (!change)
        return CliError{"--set needs KEY=VALUE (like vm.dirty_bytes=104857600), got '" + value +
                        "'"};
      o.overrides.push_back(*change);
    } else if (name == "--branch-at") {
      // The same number as --duration's: finite and greater than 0.
      const auto s = parsePositiveSeconds(value);
      if (!s)
        return CliError{
            "--branch-at needs the simulated second to branch at, a number "
            "greater than 0, got '" +
            value + "'"};
      o.branchAtS = s;
    } else if (name == "--branch-set") {
      const auto change = keyValue(value);
      if (!change)
        return CliError{"--branch-set needs KEY=VALUE (like vm.dirty_ratio=10), got '" + value +
                        "'"};
      o.branchOverrides.push_back(*change);
    } else if (name == "--branch-csv") {
      o.branchCsv = value;
    } else if (name == "--csv") {
      o.csv = value;
    } else if (name == "--task-csv") {
      o.taskCsv = value;
    } else if (name == "--trace-out") {
      o.traceOut = value;
    } else if (name == "--summary") {
      o.summary = true;
    } else if (name == "--explain") {
      std::string error;
      const auto request = engine::parseExplainRequest(value, error);
      if (!request) return CliError{"--explain needs PID@SECONDS: " + error};
      o.explain = value;
      o.explainPid = request->pid;
      o.explainS = request->seconds;
    } else if (name == "--compare") {
      std::vector<std::string> policies = commaList(value);
      if (const std::string problem = engine::checkComparePolicies(policies); !problem.empty())
        return CliError{"--compare: " + problem};
      o.comparePolicies = std::move(policies);
    } else if (name == "--seeds") {
      const auto n = wholeNumber<int>(value);
      if (!n || *n < 1 || *n > kMaxSeeds)
        return CliError{"--seeds needs a whole number from 1 to " + std::to_string(kMaxSeeds) +
                        ", got '" + value + "'"};
      o.seeds = *n;
    } else if (name == "--report") {
      if (value != "-" && !reportFormatOf(value))
        return CliError{
            "--report needs a file name ending in .md or .json (or - for Markdown "
            "on standard output), got '" +
            value + "'"};
      o.report = value;
    } else if (name == "--experiment") {
      o.experiment = value;
    } else if (name == "--quick") {
      o.quick = true;
    } else if (name == "--import-trace") {
      o.importTrace = value;
    } else if (name == "--simulate") {
      o.simulate = true;
    } else if (name == "--this-host") {
      o.thisHost = true;
    } else if (name == "--trace-cgroup") {
      const auto ino = wholeNumber<std::uint64_t>(value);
      if (!ino || *ino < 1)
        return CliError{
            "--trace-cgroup needs a cgroup_ino as the balance_dirty_pages records print it, a "
            "whole number from 1 (1 = the root cgroup), got '" +
            value + "'"};
      o.traceCgroup = ino;
    } else if (name == "--record-trace") {
      o.recordTrace = value;
    }
    return std::nullopt;
  }

  // The options of Scope::Window: what only the window reads.
  std::optional<CliError> applyWindowOption(const std::string& name, const std::string& value) {
    CliOptions& o = m_options;
    if (name == "--run-for") {
      const auto s = parsePositiveSeconds(value);
      if (!s) return secondsNeeded(name, value);
      o.runForS = s;
    } else if (name == "--unanswered") {
      o.lessonUnanswered = true;
    } else if (name == "--export-png") {
      o.exportPng = value;
    } else if (name == "--export-svg") {
      o.exportSvg = value;
    } else if (name == "--export-pdf") {
      o.exportPdf = value;
    } else if (name == "--export-csv") {
      o.exportCsv = value;
    } else if (name == "--session") {
      o.session = value;
    } else if (name == "--quit") {
      o.quit = true;
    } else if (name == "--presenter") {
      o.presenter = true;
    } else if (name == "--snapshot-budget") {
      const auto mib = wholeNumber<int>(value);
      if (!mib || *mib < 1 || *mib > kMaxSnapshotBudgetMiB)
        return CliError{"--snapshot-budget needs a whole number of MiB from 1 to " +
                        std::to_string(kMaxSnapshotBudgetMiB) + ", got '" + value + "'"};
      o.snapshotBudgetMiB = *mib;
    } else if (name == "--open-trace") {
      o.openTrace = value;
    } else if (name == "--watch-host") {
      o.watchHost = true;
    } else if (name == "--watch-cgroup") {
      o.watchCgroup = value;
      o.watchHost = true;
    }
    return std::nullopt;
  }

  // --import-trace reads a trace: it writes the CSVs of a run (no --headless needed) and, with
  // --simulate, runs the scenario the trace describes; the options that shape a scenario do
  // not apply, and neither does the window.
  std::variant<CliOptions, CliError> importMode(const std::vector<std::string>& positional) {
    CliOptions& o = m_options;
    if (!positional.empty())
      return CliError{"unexpected argument '" + positional.front() +
                      "': --import-trace takes one file"};
    for (const auto& [name, scope] : m_given) {
      if (name == "--import-trace" || name == "--headless" || name == "--csv" ||
          name == "--task-csv" || name == "--simulate")
        continue;
      if (name == "--trace-cgroup") {
        if (o.simulate)
          return CliError{
              "--trace-cgroup cannot be combined with --simulate, which derives a memory "
              "cgroup for every traced cgroup_ino"};
        continue;
      }
      if (name == "--this-host" || name == "--report") {
        if (!o.simulate)
          return CliError{std::string(name) +
                          " belongs to --simulate; add --simulate to run "
                          "the trace's scenario and compare"};
        continue;
      }
      return CliError{std::string(name) +
                      " cannot be combined with --import-trace, which takes the scenario from "
                      "the trace"};
    }
    if (auto refused = qtOptionsRefused("--import-trace")) return *refused;
    o.mode = Mode::ImportTrace;
    return o;
  }

  // --record-trace FILE --duration S: nothing else.
  std::variant<CliOptions, CliError> recordMode(const std::vector<std::string>& positional) {
    CliOptions& o = m_options;
    if (!positional.empty())
      return CliError{"unexpected argument '" + positional.front() +
                      "': --record-trace takes one file"};
    for (const auto& [name, scope] : m_given) {
      if (name == "--record-trace" || name == "--duration" || name == "--headless") continue;
      return CliError{std::string(name) +
                      " cannot be combined with --record-trace, which records this machine's "
                      "kernel"};
    }
    if (!o.durationS) return CliError{"--record-trace needs --duration S, the seconds to record"};
    if (auto refused = qtOptionsRefused("--record-trace")) return *refused;
    o.mode = Mode::RecordTrace;
    return o;
  }

  // --experiment runs its own scenarios: the options that shape or output one scenario do not
  // apply, and neither does the window.
  std::variant<CliOptions, CliError> experimentMode(const std::vector<std::string>& positional) {
    CliOptions& o = m_options;
    if (!positional.empty())
      return CliError{"unexpected argument '" + positional.front() +
                      "': --experiment runs its own scenarios"};
    for (const auto& [name, scope] : m_given) {
      if (name == "--experiment" || name == "--headless") continue;
      if (o.experiment == "list")
        return CliError{"--experiment list takes no other option, got " + std::string(name)};
      if (scope == Scope::Report || scope == Scope::Experiment) continue;
      if (name == "--seed")
        return CliError{
            "--seed does not apply to --experiment; use --seeds N for the number of "
            "seeds"};
      return CliError{std::string(name) +
                      " cannot be combined with --experiment, which runs its own scenarios"};
    }
    if (auto refused = qtOptionsRefused("--experiment")) return *refused;
    o.mode = Mode::Experiment;
    return o;
  }

  // Qt's own options (qtOption) reach only the window: refused in `mode`, which has none.
  std::optional<CliError> qtOptionsRefused(const char* mode) const {
    if (m_options.qtArguments.empty()) return std::nullopt;
    return CliError{m_options.qtArguments.front() +
                    " is an option of the window (Qt); it cannot be combined with " + mode};
  }

  std::optional<CliError> qtOption(const std::vector<std::string>& args, std::size_t& i) {
    const std::string& arg = args[i];
    if (std::find(kQtFlags.begin(), kQtFlags.end(), arg) != kQtFlags.end()) {
      m_options.qtArguments.push_back(arg);
      return std::nullopt;
    }
    if (std::find(kQtOptionsWithValue.begin(), kQtOptionsWithValue.end(), arg) !=
        kQtOptionsWithValue.end()) {
      if (i + 1 >= args.size()) return CliError{"missing value for " + arg};
      m_options.qtArguments.push_back(arg);
      m_options.qtArguments.push_back(args[++i]);
      return std::nullopt;
    }
    return CliError{unknownOption(arg)};
  }

  // --lesson brings its own scenarios and says how long each step runs.
  std::optional<CliError> lessonProblem(const std::vector<std::string>& positional) const {
    if (m_options.lesson.empty()) return CliError{"--step belongs to --lesson NAME|FILE"};
    if (!positional.empty() || !m_options.scenario.empty())
      return CliError{"--lesson brings its own scenarios; it cannot be combined with a scenario"};
    for (const auto& [name, scope] : m_given) {
      if (name == "--lesson" || name == "--step" || name == "--headless" || name == "--quit" ||
          name == "--check" || name == "--unanswered" || name == "--presenter" ||
          name.rfind("--export-", 0) == 0)
        continue;
      return CliError{std::string(name) +
                      " cannot be combined with --lesson, whose steps say "
                      "what runs and for how long"};
    }
    return std::nullopt;
  }

  CliOptions m_options;
  bool m_listScenarios = false;
  bool m_listLessons = false;
  bool m_listPolicies = false;
  std::vector<std::pair<std::string_view, Scope>> m_given;
};

}  // namespace

bool CliOptions::hasWindowOnlyOptions() const {
  return runForS || !lesson.empty() || lessonUnanswered || !exportPng.empty() ||
         !exportSvg.empty() || !exportPdf.empty() || !exportCsv.empty() || !session.empty() ||
         quit || presenter || !openTrace.empty() || watchHost || !watchCgroup.empty() ||
         snapshotBudgetMiB;
}

std::vector<engine::Override> CliOptions::allOverrides() const {
  std::vector<engine::Override> all = overrides;
  if (durationS) all.push_back({"durationS", shortestNumber(*durationS)});
  if (seed) all.push_back({"seed", std::to_string(*seed)});
  if (policy) all.push_back({"policy", jsonString(*policy)});
  return all;
}

std::optional<ReportFormat> reportFormatOf(std::string_view path) {
  const auto endsWith = [&](std::string_view suffix) {
    return path.size() > suffix.size() &&
           path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (path == "-" || endsWith(".md") || endsWith(".markdown")) return ReportFormat::Markdown;
  if (endsWith(".json")) return ReportFormat::Json;
  return std::nullopt;
}

std::variant<CliOptions, CliError> parseCommandLine(const std::vector<std::string>& args) {
  return Parser().parse(args);
}

namespace {

// The --help text, a constant a section, in the order printed with an empty line between
// them. docs/command-line.md quotes it (the test docs.command_line_options compares them).
constexpr std::string_view kHelpUsage = R"(Usage:
  throttlelab [SCENARIO] [options]                 open the window
  throttlelab --headless [--scenario FILE|NAME] [options]
                                                   run without a window, write the outputs
  throttlelab --headless [--scenario FILE|NAME] --compare A,B [--seeds N] [--report FILE]
                                                   run a scenario under several policies
  throttlelab --headless [--scenario FILE|NAME] --branch-at S --branch-set KEY=VALUE
              [--branch-set ...] [--csv A.csv] --branch-csv B.csv [--report FILE]
                                                   run a scenario, and from second S a branch
                                                   of it with changes, side by side
  throttlelab --experiment list | NAME [--seeds N] [--quick] [--report FILE]
                                                   reproduce a seed mail's experiment
  throttlelab --import-trace FILE [--csv FILE] [--task-csv FILE]
              [--simulate [--this-host] [--report FILE]]
                                                   read a kernel trace, convert it, simulate it
  throttlelab --record-trace FILE --duration S     record this machine's kernel (root)
  throttlelab --lesson NAME|FILE [--step K] [--presenter] [--unanswered]
              [--export-png FILE --quit]
                                                   play a lesson in the window
  throttlelab --headless --lesson NAME|FILE [--step K]
                                                   print a lesson with its measured answers
  throttlelab --headless --lesson NAME|FILE --check
                                                   check every keyed answer against the run
  throttlelab --list-scenarios | --list-lessons | --list-policies | --version | --help
)";

constexpr std::string_view kHelpScenario = R"(Scenario (window and headless):
  --scenario FILE|NAME   scenario JSON file, or the name of a built-in scenario
                         (see --list-scenarios); default: "default"
  --duration S           simulated seconds to run (sets durationS)
  --seed N               random seed, an unsigned 64-bit integer (sets seed)
  --policy NAME          throttling policy (sets policy), e.g. ioless
  --set KEY=VALUE        change one scenario key before the run; KEY is a JSON path
                         such as vm.dirty_bytes, tasks[0].count, device.writeMBps or
                         machine.cpus; VALUE is JSON, or else taken as a string.
                         Repeatable; applied in order. See docs/scenario-format.md.
)";

constexpr std::string_view kHelpHeadlessOutputs =
    R"(Headless outputs (FILE "-" means standard output; see "Output files" below):
  --headless             run to the end of the scenario without a window
  --csv FILE             one row per sample interval (time_s, dirty_pages, ...)
  --task-csv FILE        one row per task per interval (time_s, task, pid, sched,
                         dirtied_pages, write_kbps, task_ratelimit_kbps, pause_ms, state)
  --trace-out FILE       global_dirty_state, bdi_dirty_ratelimit and balance_dirty_pages
                         records, and block_rq_issue/complete and jbd2_start/end_commit,
                         in the text format of /sys/kernel/tracing/trace
  --explain PID@SECONDS  print why task PID waited: its last balance_dirty_pages() call
                         at or before SECONDS, step by step with the policy's numbers
                         (the run still goes to its end for the other outputs). In the
                         window, with --run-for and --export-png: the PNG is the whole
                         window with that task's breakdown in the "Why this pause" panel
  --summary              print a table at the end: per-task throughput, pauses and CPU
                         time, device throughput, request size, time above freerun and
                         limit, %system/%user, and allocation stalls, swap and OOM kills
                         when there were any. Printed anyway when no output file is asked for.
)";

constexpr std::string_view kHelpPolicyComparison = R"(Policy comparison (headless):
  --compare A,B[,...]    run the scenario once per policy (two or more, e.g.
                         perbdi-2.6.24,ioless; an unknown name is listed with the known
                         ones) and report %system, wkB/s, avgrq-sz, pauses, ... with the
                         change relative to the first policy. A run ends at the scenario's
                         duration or when all its tasks have exited.
  --seeds N              run seeds SEED .. SEED+N-1 for each policy (default 1); the
                         report then gives the mean and the spread
  --report FILE          FILE.md: Markdown tables; FILE.json: {"scenario", "runs",
                         "comparison"}; "-": Markdown on standard output (the default)
)";

constexpr std::string_view kHelpBranchedRun =
    R"(Branched run (headless): what if, from second S, one thing had been different
  --branch-at S          run the scenario to simulated second S, then go on twice from
                         exactly that state: unchanged (--csv, --task-csv, --trace-out as
                         usual) and with the --branch-set changes (--branch-csv). Rows of
                         the branch up to S are the run's own; after S they follow the
                         changed scenario. S must lie before the end of the run.
  --branch-set KEY=VALUE change one scenario key at S, by the rules of --set (the keys
                         the running window's controls change: vm.*, tasks[N].*, memory,
                         CPUs, device speed, policy; durationS sets the branch's end).
                         Repeatable; at least one. The seed cannot change at a branch.
  --branch-csv FILE      the branch's sample rows, the columns of --csv, with "# branch"
                         header lines naming the branch time and the changes
  --report FILE          the run and its branch compared with the metrics of --compare
                         (FILE.md, FILE.json, or "-": Markdown on standard output)
  In the window, --branch-at S --branch-set KEY=VALUE with --run-for T (T > S) runs to T,
  branches at S and shows both futures at T in the compare view, for --export-png/svg/pdf;
  --export-csv F writes the original to F and the branch to F-branch.csv.
)";

constexpr std::string_view kHelpSeedExperiments =
    R"(Seed experiments (the mailing-list measurements of docs/model.md, reproduced; no --headless needed):
  --experiment list      list the experiments (name and title)
  --experiment NAME      run one: every case with each seed, then judge the mail's claims
                         from the simulated numbers; the verdicts are printed at the end
  --seeds N              seeds per case (default 3)
  --quick                the reduced form: shorter runs, fewer cases (for tests)
  --report FILE          FILE.md: the mail's table with its value beside the simulated
                         one, the machine with the source of every value, the verdicts;
                         FILE.json: {"experiment", "rows", "verdicts"}; "-": Markdown on
                         standard output instead of the verdict lines
)";

constexpr std::string_view kHelpKernelTraces = R"(Kernel traces (no --headless needed):
  --import-trace FILE    read the writeback:global_dirty_state, bdi_dirty_ratelimit and
                         balance_dirty_pages events of a kernel trace: the text of
                         /sys/kernel/tracing/trace or trace_pipe, `trace-cmd report` or
                         `perf script`, from 3.2-era to current kernels ("-" reads standard
                         input). Prints what it read and which lines it skipped. A file that
                         holds no such event, and binary input, are refused (exit status 2).
                         Values a field cannot hold and lines over 64 KiB are counted as
                         malformed with their line number; events out of time order by up
                         to 10 ms are put in order, and a trace whose time goes further back
                         is read as segments laid one after another. Lines ending in a
                         carriage return alone are read as lines.
  --csv FILE             with --import-trace: the same columns as a simulation's --csv, one
                         row per 0.1 s where the trace has events (values a trace cannot
                         know are 0): gaps of up to 1 s repeat the last values, longer ones
                         have no rows (the summary counts them); at most 64 devices get
                         columns
  --task-csv FILE        with --import-trace: one row per pid per 0.1 s in which it appeared
  --simulate             with --import-trace: derive a scenario from the trace (thresholds,
                         one device per bdi at its measured bandwidth, one looping dd per
                         throttled pid), simulate it for the trace's span, at most an hour
                         and 600,000 writer-seconds (after a 20 s warm-up if the trace
                         begins with the writers running), and print measured against
                         simulated (metric | measured | simulated | off %) with how every
                         value was derived; a trace describing a machine beyond the
                         simulator's limits is refused (exit status 2)
  --this-host            with --simulate: the trace was taken on this machine, so use its
                         CPUs, memory, HZ (as root) and the traced disks' request queues
  --trace-cgroup INO     with --import-trace (not --simulate) or --open-trace: only the
                         balance_dirty_pages and bdi_dirty_ratelimit records of one memory
                         cgroup, by the cgroup_ino they carry (1 = the root cgroup); the
                         machine's global_dirty_state records stay. The CSVs then hold that
                         cgroup's writers and pauses (with a "# cgroup_ino: INO" line). An
                         INO no record carries is refused, naming the ones the trace has
                         (exit status 2)
  --report FILE          with --simulate: FILE.md or FILE.json ("-": Markdown on standard
                         output instead of the table)
  --record-trace FILE    record the three events from this machine's kernel into FILE (root;
                         in a private ftrace instance, so the system's own tracing is left
                         as it was); needs --duration S
)";

constexpr std::string_view kHelpWindow = R"(Window:
  --run-for S            run S simulated seconds as fast as possible, then stop
  --export-png FILE      save the dashboard as PNG (after --run-for, if given)
  --export-svg FILE      save the dashboard as SVG
  --export-pdf FILE      save the dashboard as PDF
  --export-csv FILE      save the samples shown as CSV
  --session FILE         open a saved session
  --quit                 quit after the exports, with their exit status
  --run-for, --quit and the exports make a scripted run: it stays paused (whatever the
  session says) until it has run to --run-for S (0 without it), waits for --open-trace
  to load, and exports only if every file given loaded; otherwise it prints why and,
  with --quit, exits with status 2 without exporting. It writes nothing but its named
  outputs: no recent file, no setting of the window (~/.config/ThrottleLab).
  --presenter            large fonts and thick lines for a projector
  --snapshot-budget MIB  the memory the run's snapshots for Branch here may take (default
                         @SNAPSHOT_MIB@ MiB, or 1/32 of this machine's memory if that is less); fewer
                         snapshots reach the same moments by longer replays
  --lesson NAME|FILE     play a lesson (see --list-lessons; docs/lessons.md): its steps
                         load their scenarios, apply their changes and run; PageDown and
                         PageUp move between steps. A scripted run (--export-png ... --quit)
                         exports once the step given has run; its PNG is the whole window,
                         the lesson panel beside the plots. With --headless: print the
                         lesson's steps with each answer and the numbers the run measured.
  --step K               open the lesson at step K (1-based; the steps before it are run)
  --unanswered           with --lesson and an export: the figure shows the step's question
                         as the class sees it before answering (the run at the step's
                         start), instead of the step run and its answer revealed
  --check                with --headless --lesson: run the lesson and print, per question,
                         its check (or numeric expectation), the figures it uses with their
                         values, and "holds" or "does not hold"; exit status 0 when every
                         keyed answer holds, 1 when one does not, 2 for a bad lesson
  --open-trace FILE      open a kernel trace in the Real kernel view, measured against
                         simulated (the window's form of --import-trace)
  --watch-host           open live host mode: this machine's dirty pages against its
                         thresholds, polled from /proc ten times a second
  --watch-cgroup PATH    live host mode watching one memory cgroup beside the machine: its
                         dirty and writeback pages (memory.stat) against its memory limit
                         and, on cgroup v2, its own dirty thresholds. PATH is a directory
                         or a path below /sys/fs/cgroup (also tried below its memory/,
                         where cgroup v1 mounts the controller); one that is not a memory
                         cgroup is refused (exit status 2)
  Qt's own options (-platform NAME, -style NAME, -reverse, ...) are passed to Qt.
  Without DISPLAY, WAYLAND_DISPLAY or QT_QPA_PLATFORM, throttlelab runs the scenario
  headless with --summary instead (use xvfb-run, or QT_QPA_PLATFORM=offscreen for exports).
)";

constexpr std::string_view kHelpOutputFiles =
    R"(Output files (--csv, --task-csv, --trace-out, --report, --record-trace, --export-*):
  A regular file is written to FILE.tmp-PID beside it and renamed over FILE only when
  the run succeeded: FILE is the old file or the complete new one, never a part. A
  symbolic link is followed and its target replaced; the link stays. A character device
  (/dev/null) or a FIFO is written in place as the run goes, never replaced; a
  directory or a block device is refused. An output may not name a file the run reads
  (--scenario, --session, --import-trace, --open-trace), and two outputs may not name
  one file (a character device excepted); both are refused before anything runs.
  When a headless run or a trace import has several outputs, none is renamed until all
  are complete, then all are renamed one after the other (--csv, --task-csv,
  --trace-out, --branch-csv, --report) with SIGINT, SIGTERM, SIGHUP and the like held back: such a signal
  leaves every file old, or, arriving during the renames, every file new. Only SIGKILL
  or a crash during the renames can leave the first outputs of that order new and the
  rest old. On those
  signals the temporary files are removed (and the process ends by the signal); one
  left by SIGKILL is removed by the next run that writes the same output, if its PID
  is no longer running.
)";

constexpr std::string_view kHelpOther = R"(Other:
  --list-scenarios       list the built-in scenarios with their descriptions
  --list-lessons         list the built-in lessons with their titles
  --list-policies        list the throttling policies: their kernels and what each does
  --version              print "throttlelab VERSION"
  --help                 print this help
)";

constexpr std::string_view kHelpProgress =
    R"(Progress: long work (a headless run or branch, --compare, --experiment, --simulate, a
headless lesson) that is expected to take more than about two seconds prints one line on
standard error while it runs, when standard error is a terminal: the simulated seconds done
of the whole, the speed against real time and an estimate of the time left. Nothing is
printed into a file or a pipe. THROTTLELAB_PROGRESS_DELAY=S sets the two seconds (0: always).
)";

constexpr std::string_view kHelpValuesAndExitStatus =
    R"(Options take their value as "--opt value" or "--opt=value".
Exit status: 0 on success; 2 on bad input (options, files that are read, output paths
that cannot be written; the message on standard error names the problem, nothing is
written); 1 when an output could not be written (a full disk, or standard output
failed, for example closed or full: every mode checks that what it printed arrived;
a mode that prints there refuses to start when it is closed), when a scripted window
run could not export, or on an internal error. A closed standard input or error is
never taken by a file the program opens (--import-trace - refuses a closed input).
)";

constexpr std::array kHelpSections{
    kHelpUsage,       kHelpScenario,        kHelpHeadlessOutputs, kHelpPolicyComparison,
    kHelpBranchedRun, kHelpSeedExperiments, kHelpKernelTraces,    kHelpWindow,
    kHelpOutputFiles, kHelpOther,           kHelpProgress,        kHelpValuesAndExitStatus,
};

}  // namespace

std::string helpText() {
  std::string text;
  for (const std::string_view section : kHelpSections) {
    if (!text.empty()) text += '\n';
    text += section;
  }
  // The default the window's snapshot store takes (SnapshotStoreOptions::budgetFor()), from
  // the engine's constant rather than a second copy of it that can go stale.
  const std::string_view mark = "@SNAPSHOT_MIB@";
  text.replace(text.find(mark), mark.size(),
               std::to_string(engine::SnapshotStoreOptions::kDefaultBudgetBytes >> 20));
  return text;
}

}  // namespace throttlelab::cli
