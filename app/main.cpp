// SPDX-License-Identifier: GPL-3.0-or-later
// Entry point: --version, --help, --list-scenarios, --experiment, --import-trace, --record-trace
// and --headless never touch Qt; everything else opens the window, or runs headless with a note
// when there is no display to open it on. Whatever the mode, what it printed must have reached
// standard output: a failed write there (a full disk, a closed pipe) is an error, not a success.
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "cli_options.h"
#include "headless.h"
#include "output_file.h"
#include "reports.h"
#include "standard_streams.h"
#include "throttlelab/engine/lesson.h"
#include "throttlelab/host/cgroup_sampler.h"
#include "throttlelab/host/trace_recorder.h"
#include "throttlelab/ui/gui_main.h"

namespace {

namespace cli = throttlelab::cli;

bool isSet(const char* name) {
  const char* value = std::getenv(name);
  return value && *value;
}

/// Whether the window can open: a display, or a Qt platform (offscreen) named.
bool hasDisplay() {
  return isSet("DISPLAY") || isSet("WAYLAND_DISPLAY") || isSet("QT_QPA_PLATFORM");
}

throttlelab::ui::GuiLaunchOptions toGuiOptions(const cli::CliOptions& o) {
  throttlelab::ui::GuiLaunchOptions g;
  g.scenario = o.scenario;
  g.overrides = o.overrides;
  // The window has no duration option of its own; durationS is a scenario key like any other.
  if (o.durationS) {
    cli::CliOptions durationOnly;
    durationOnly.durationS = o.durationS;
    const auto extra = durationOnly.allOverrides();
    g.overrides.insert(g.overrides.end(), extra.begin(), extra.end());
  }
  g.policy = o.policy;
  g.seed = o.seed;
  g.runForS = o.runForS;
  g.exportPng = o.exportPng;
  g.explainPid = o.explainPid;
  g.explainS = o.explainS;
  g.exportSvg = o.exportSvg;
  g.exportPdf = o.exportPdf;
  g.exportCsv = o.exportCsv;
  g.session = o.session;
  g.quit = o.quit;
  g.presenter = o.presenter;
  if (o.snapshotBudgetMiB)
    g.snapshotBudgetBytes = static_cast<std::size_t>(*o.snapshotBudgetMiB) << 20;
  g.importTrace = o.openTrace;
  g.traceCgroup = o.traceCgroup;
  g.watchHost = o.watchHost;
  g.watchCgroup = o.watchCgroup;
  g.lesson = o.lesson;
  g.lessonStep = o.lessonStep.value_or(1);
  g.lessonUnanswered = o.lessonUnanswered;
  g.branchAtS = o.branchAtS;
  g.branchOverrides = o.branchOverrides;
  return g;
}

int runMode(cli::CliOptions& options) {
  switch (options.mode) {
    case cli::Mode::Help:
      std::cout << cli::helpText();
      return cli::kExitOk;
    case cli::Mode::Version:
      std::cout << "throttlelab " << THROTTLELAB_VERSION << '\n';
      return cli::kExitOk;
    case cli::Mode::ListScenarios:
      cli::listScenarios(std::cout);
      return cli::kExitOk;
    case cli::Mode::ListLessons:
      cli::listLessons(std::cout);
      return cli::kExitOk;
    case cli::Mode::ListPolicies:
      cli::listPolicies(std::cout);
      return cli::kExitOk;
    case cli::Mode::Headless:
      if (!options.lesson.empty()) return cli::runLessonText(options, std::cout, std::cerr);
      if (!options.comparePolicies.empty()) return cli::runCompare(options, std::cout, std::cerr);
      return cli::runHeadless(options, std::cout, std::cerr);
    case cli::Mode::Experiment:
      return cli::runExperimentCommand(options, std::cout, std::cerr);
    case cli::Mode::ImportTrace:
      return cli::runImportTrace(options, std::cout, std::cerr);
    case cli::Mode::RecordTrace:
      return throttlelab::host::recordTraceToFile(options.recordTrace, *options.durationS,
                                                  std::cout, std::cerr);
    case cli::Mode::Gui:
      break;
  }
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  // Before anything is opened: a closed standard descriptor would be taken by the first file.
  const cli::ClosedStandardStreams closed = cli::reserveStandardStreams();
  std::ios::sync_with_stdio(false);
  // Our own buffer behind std::cout, so that a failed write is noticed and its errno known.
  cli::FdStreamBuf standardOutput(STDOUT_FILENO);
  std::cout.rdbuf(&standardOutput);
  // Whatever way main returns, std::cout lets go of the buffer before the buffer goes away
  // (the library flushes std::cout once more at exit).
  struct ReleaseStandardOutput {
    ~ReleaseStandardOutput() { std::cout.rdbuf(nullptr); }
  } const releaseStandardOutput;
  // Every return below passes through here: the status stands only if standard output took
  // everything (a mode that already failed has said why; its status stands too).
  const auto finish = [&](int status) {
    if (const auto failure = cli::standardOutputFailure(std::cout); failure && status == 0) {
      std::cerr << "throttlelab: cannot write to standard output: " << *failure << '\n';
      status = cli::kExitWriteFailed;
    }
    return status;
  };

  const std::vector<std::string> args(argv + 1, argv + argc);
  const auto parsed = cli::parseCommandLine(args);
  if (const auto* error = std::get_if<cli::CliError>(&parsed)) {
    std::cerr << "throttlelab: " << error->message << "\nTry 'throttlelab --help'.\n";
    return finish(cli::kExitBadInput);
  }
  cli::CliOptions options = std::get<cli::CliOptions>(parsed);
  // Every mode but the window prints on standard output; closed, nothing it printed would
  // arrive. Refused before anything is read or written.
  const bool windowShown = options.mode == cli::Mode::Gui && hasDisplay();
  if (closed.output && !windowShown) {
    std::cerr << "throttlelab: standard output is closed, so nothing was run; redirect it to a "
                 "file, or to /dev/null to discard what is printed there\n";
    return cli::kExitWriteFailed;
  }
  if (closed.input && options.importTrace == "-") {
    std::cerr << "throttlelab: --import-trace -: standard input is closed; give the trace's "
                 "file name, or redirect it\n";
    return cli::kExitBadInput;
  }
  options.progressOnTerminal = !closed.error && ::isatty(STDERR_FILENO) == 1;
  if (options.mode != cli::Mode::Gui) return finish(runMode(options));
  // A lesson that does not load: its message (the step and the key) and status 2, before any
  // window opens or anything else is read or written.
  if (!options.lesson.empty()) {
    try {
      const auto lesson = throttlelab::engine::loadLesson(options.lesson);
      if (options.lessonStep && *options.lessonStep > static_cast<int>(lesson.steps.size())) {
        std::cerr << "throttlelab: --step " << *options.lessonStep << ": the lesson " << lesson.name
                  << " has " << lesson.steps.size() << " steps\n";
        return finish(cli::kExitBadInput);
      }
    } catch (const throttlelab::engine::LessonError& e) {
      std::cerr << "throttlelab: --lesson " << e.what() << '\n';
      return finish(cli::kExitBadInput);
    }
  }

  // A cgroup that cannot be watched: its path and why, status 2, before any window opens.
  if (!options.watchCgroup.empty()) {
    const auto where = throttlelab::host::locateCgroup(options.watchCgroup);
    if (!where.ok()) {
      std::cerr << "throttlelab: --watch-cgroup: " << where.error << '\n';
      return finish(cli::kExitBadInput);
    }
  }

  if (!hasDisplay()) {
    if (options.hasWindowOnlyOptions() || !options.qtArguments.empty()) {
      // Exports and sessions need the window; a headless summary would silently drop them.
      std::cerr << "throttlelab: no display found (DISPLAY and WAYLAND_DISPLAY are unset), and "
                   "the window options given need one. Use xvfb-run, or set "
                   "QT_QPA_PLATFORM=offscreen for exports without a display.\n";
      if (!options.openTrace.empty())
        std::cerr << "throttlelab: without a window, --import-trace " << options.openTrace
                  << " --simulate compares the trace with a simulation in text.\n";
      return cli::kExitBadInput;
    }
    std::cerr << "throttlelab: no display found (DISPLAY and WAYLAND_DISPLAY are unset); running "
                 "headless instead. Use xvfb-run for the window, or --headless.\n";
    options.mode = cli::Mode::Headless;
    options.summary = true;
    return finish(cli::runHeadless(options, std::cout, std::cerr));
  }

  // Qt reads argv itself: hand it argv[0] and the Qt options only, never ours.
  std::vector<std::string> qtArgs{argc > 0 ? argv[0] : "throttlelab"};
  qtArgs.insert(qtArgs.end(), options.qtArguments.begin(), options.qtArguments.end());
  std::vector<char*> qtArgv;
  for (auto& a : qtArgs) qtArgv.push_back(a.data());
  qtArgv.push_back(nullptr);
  int qtArgc = static_cast<int>(qtArgs.size());
  return finish(throttlelab::ui::runGui(qtArgc, qtArgv.data(), toGuiOptions(options)));
}
