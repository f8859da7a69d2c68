// SPDX-License-Identifier: GPL-3.0-or-later
// The option parser on its own: every option in both spellings, and every kind of bad input.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "all_options.h"
#include "cli_options.h"
#include "throttlelab/engine/snapshot_store.h"

namespace cli = throttlelab::cli;

namespace {

cli::CliOptions parseOk(const std::vector<std::string>& args) {
  auto r = cli::parseCommandLine(args);
  if (const auto* e = std::get_if<cli::CliError>(&r)) {
    ADD_FAILURE() << "rejected: " << e->message;
    return {};
  }
  return std::get<cli::CliOptions>(r);
}

std::string parseError(const std::vector<std::string>& args) {
  auto r = cli::parseCommandLine(args);
  if (const auto* e = std::get_if<cli::CliError>(&r)) return e->message;
  std::string joined;
  for (const auto& a : args) joined += a + " ";
  ADD_FAILURE() << "accepted: " << joined;
  return {};
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST(CliOptions, NoArgumentsOpenTheWindowOnTheDefaultScenario) {
  const auto o = parseOk({});
  EXPECT_EQ(o.mode, cli::Mode::Gui);
  EXPECT_TRUE(o.scenario.empty());
}

TEST(CliOptions, ReadsEveryHeadlessOption) {
  const auto o = parseOk({"--headless",
                          "--scenario",
                          "ten-dd",
                          "--duration",
                          "2.5",
                          "--seed",
                          "18446744073709551615",
                          "--policy",
                          "ioless",
                          "--set",
                          "vm.dirty_bytes=104857600",
                          "--set",
                          "tasks[0].count=3",
                          "--csv",
                          "out.csv",
                          "--task-csv",
                          "-",
                          "--trace-out",
                          "trace.txt",
                          "--summary"});
  EXPECT_EQ(o.mode, cli::Mode::Headless);
  EXPECT_EQ(o.scenario, "ten-dd");
  EXPECT_EQ(o.durationS, 2.5);
  EXPECT_EQ(o.seed, 18446744073709551615u);
  EXPECT_EQ(o.policy, "ioless");
  ASSERT_EQ(o.overrides.size(), 2u);
  EXPECT_EQ(o.overrides[0].path, "vm.dirty_bytes");
  EXPECT_EQ(o.overrides[0].value, "104857600");
  EXPECT_EQ(o.overrides[1].path, "tasks[0].count");
  EXPECT_EQ(o.csv, "out.csv");
  EXPECT_EQ(o.taskCsv, "-");
  EXPECT_EQ(o.traceOut, "trace.txt");
  EXPECT_TRUE(o.summary);
  EXPECT_FALSE(o.summaryImplied());
}

TEST(CliOptions, AcceptsOptionEqualsValue) {
  const auto o = parseOk(
      {"--headless", "--scenario=one-dd", "--duration=3", "--csv=-", "--set=policy=ioless"});
  EXPECT_EQ(o.scenario, "one-dd");
  EXPECT_EQ(o.durationS, 3.0);
  EXPECT_EQ(o.csv, "-");
  ASSERT_EQ(o.overrides.size(), 1u);
  EXPECT_EQ(o.overrides[0].path, "policy");
  EXPECT_EQ(o.overrides[0].value, "ioless");
}

TEST(CliOptions, ReadsEveryWindowOption) {
  const auto o = parseOk({"--run-for", "10", "--export-png", "a.png", "--export-svg", "a.svg",
                          "--export-pdf", "a.pdf", "--export-csv", "a.csv", "--session", "s.json",
                          "--quit", "--presenter", "--snapshot-budget", "64", "my.json"});
  EXPECT_EQ(o.mode, cli::Mode::Gui);
  EXPECT_EQ(o.runForS, 10.0);
  EXPECT_EQ(o.exportPng, "a.png");
  EXPECT_EQ(o.exportSvg, "a.svg");
  EXPECT_EQ(o.exportPdf, "a.pdf");
  EXPECT_EQ(o.exportCsv, "a.csv");
  EXPECT_EQ(o.session, "s.json");
  EXPECT_TRUE(o.quit);
  EXPECT_TRUE(o.presenter);
  EXPECT_EQ(o.snapshotBudgetMiB, 64);
  EXPECT_EQ(o.scenario, "my.json");
  EXPECT_TRUE(o.hasWindowOnlyOptions());
}

TEST(CliOptions, SetKeepsEverythingAfterTheFirstEqualsSign) {
  const auto o = parseOk({"--set", "name=a=b", "--set", "description="});
  ASSERT_EQ(o.overrides.size(), 2u);
  EXPECT_EQ(o.overrides[0].value, "a=b");
  EXPECT_EQ(o.overrides[1].path, "description");
  EXPECT_EQ(o.overrides[1].value, "");
}

TEST(CliOptions, FoldsDurationSeedAndPolicyIntoOverrides) {
  const auto o =
      parseOk({"--duration", "0.5", "--seed", "7", "--policy", "we\"ird", "--set", "durationS=9"});
  const auto all = o.allOverrides();
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[0].path, "durationS");  // --set first, so the dedicated option wins
  EXPECT_EQ(all[1].path, "durationS");
  EXPECT_EQ(all[1].value, "0.5");
  EXPECT_EQ(all[2].path, "seed");
  EXPECT_EQ(all[2].value, "7");
  EXPECT_EQ(all[3].path, "policy");
  EXPECT_EQ(all[3].value, "\"we\\\"ird\"");
}

TEST(CliOptions, HelpAndVersionWinOverEverythingElse) {
  EXPECT_EQ(parseOk({"--headless", "--bogus", "--help"}).mode, cli::Mode::Help);
  EXPECT_EQ(parseOk({"-h"}).mode, cli::Mode::Help);
  EXPECT_EQ(parseOk({"--csv", "x", "--version"}).mode, cli::Mode::Version);
  EXPECT_EQ(parseOk({"--list-scenarios"}).mode, cli::Mode::ListScenarios);
}

TEST(CliOptions, RejectsAnUnknownOptionAndSuggestsTheClosest) {
  const std::string e = parseError({"--headless", "--sumary"});
  EXPECT_TRUE(contains(e, "unknown option '--sumary'")) << e;
  EXPECT_TRUE(contains(e, "did you mean '--summary'")) << e;
  EXPECT_FALSE(contains(parseError({"--completely-different"}), "did you mean")) << e;
  EXPECT_TRUE(contains(parseError({"-x"}), "'-x'"));
}

TEST(CliOptions, RejectsAMissingValue) {
  EXPECT_TRUE(contains(parseError({"--headless", "--csv"}), "missing value for --csv"));
  EXPECT_TRUE(
      contains(parseError({"--headless", "--csv", "--summary"}), "missing value for --csv"));
  EXPECT_TRUE(contains(parseError({"--headless", "--scenario="}), "--scenario"));
}

TEST(CliOptions, RejectsBadNumbers) {
  for (const char* bad : {"abc", "-1", "0", "1e999", "2s", ""}) {
    const std::string e = parseError({"--headless", std::string("--duration=") + bad});
    EXPECT_TRUE(contains(e, "--duration")) << bad << ": " << e;
  }
  for (const char* bad : {"-1", "1.5", "18446744073709551616", "x"})
    EXPECT_TRUE(contains(parseError({"--seed", bad}), "--seed")) << bad;
  EXPECT_TRUE(contains(parseError({"--run-for", "soon"}), "--run-for"));
  for (const char* bad : {"0", "-5", "1.5", "64M", "2000000"})
    EXPECT_TRUE(contains(parseError({"--snapshot-budget", bad}), "--snapshot-budget needs")) << bad;
  EXPECT_TRUE(contains(parseError({"--headless", "--snapshot-budget", "64"}), "window"));
}

TEST(CliOptions, RejectsSetWithoutKeyEqualsValue) {
  EXPECT_TRUE(contains(parseError({"--set", "vm.dirty_bytes"}), "KEY=VALUE"));
  EXPECT_TRUE(contains(parseError({"--set", "=5"}), "KEY=VALUE"));
}

TEST(CliOptions, RejectsAFlagWithAValueAndARepeatedOption) {
  EXPECT_TRUE(contains(parseError({"--headless", "--summary=yes"}), "--summary takes no value"));
  EXPECT_TRUE(contains(parseError({"--headless", "--csv", "a", "--csv", "b"}), "more than once"));
}

TEST(CliOptions, KeepsHeadlessAndWindowOptionsApart) {
  EXPECT_TRUE(contains(parseError({"--csv", "out.csv"}), "add --headless"));
  EXPECT_TRUE(contains(parseError({"--summary"}), "--summary"));
  EXPECT_TRUE(contains(parseError({"--headless", "--export-png", "a.png"}), "--export-png"));
  EXPECT_TRUE(contains(parseError({"--headless", "--quit"}), "--quit"));
  EXPECT_TRUE(contains(parseError({"--headless", "-platform", "offscreen"}), "-platform"));
}

TEST(CliOptions, TakesOneScenarioAsAPlainArgument) {
  EXPECT_EQ(parseOk({"--headless", "my.json"}).scenario, "my.json");
  EXPECT_TRUE(contains(parseError({"a.json", "b.json"}), "unexpected argument 'b.json'"));
  EXPECT_TRUE(contains(parseError({"--scenario", "a", "b.json"}), "unexpected argument"));
  EXPECT_EQ(parseOk({"--", "--odd-name.json"}).scenario, "--odd-name.json");
}

TEST(CliOptions, PassesQtOptionsThroughToTheWindow) {
  const auto o = parseOk({"-platform", "offscreen", "-reverse", "--presenter"});
  EXPECT_EQ(o.qtArguments, (std::vector<std::string>{"-platform", "offscreen", "-reverse"}));
  EXPECT_TRUE(o.presenter);
}

TEST(CliOptions, ImpliesTheSummaryOnlyWhenNoOutputIsAsked) {
  EXPECT_TRUE(parseOk({"--headless"}).summaryImplied());
  EXPECT_FALSE(parseOk({"--headless", "--trace-out", "t"}).summaryImplied());
}

TEST(CliOptions, HelpDocumentsEveryOption) {
  const std::string help = cli::helpText();
  for (const auto& option : throttlelab::cli::test::kAllOptions)
    EXPECT_TRUE(contains(help, option)) << option;
}

/// --help names the snapshot budget the window takes when none is given: the engine's
/// default (it said 128 MiB while the store held 64).
TEST(CliOptions, HelpGivesTheSnapshotBudgetTheEngineUses) {
  const std::string help = cli::helpText();
  const auto at = help.find("--snapshot-budget MIB");
  ASSERT_NE(at, std::string::npos);
  const std::string entry = help.substr(at, help.find("\n  --", at + 1) - at);
  const std::string mib =
      std::to_string(throttlelab::engine::SnapshotStoreOptions::kDefaultBudgetBytes >> 20) + " MiB";
  EXPECT_TRUE(contains(entry, "(default\n                         " + mib)) << entry;
  EXPECT_TRUE(contains(entry, "1/32")) << entry;
  EXPECT_FALSE(contains(help, "@SNAPSHOT")) << "a placeholder left in the help";
}

// ---------------------------------------------------------------------------------------------
// Reports: --compare and --experiment

TEST(CliOptions, ReadsAComparison) {
  const auto o = parseOk({"--headless", "--scenario", "ten-dd", "--compare", "perbdi-2.6.24,ioless",
                          "--seeds", "3", "--report", "out.json", "--duration", "30"});
  EXPECT_EQ(o.mode, cli::Mode::Headless);
  EXPECT_EQ(o.comparePolicies, (std::vector<std::string>{"perbdi-2.6.24", "ioless"}));
  EXPECT_EQ(o.seeds, 3);
  EXPECT_EQ(o.report, "out.json");
  EXPECT_EQ(o.durationS, 30.0);
  const auto three = parseOk({"--headless", "--compare=ioless,none,perbdi-2.6.24", "--report=-"});
  EXPECT_EQ(three.comparePolicies.size(), 3u);
  EXPECT_EQ(three.report, "-");
}

TEST(CliOptions, RejectsABadComparison) {
  EXPECT_TRUE(contains(parseError({"--headless", "--compare", "ioless"}), "at least two"));
  const std::string unknown = parseError({"--headless", "--compare", "ioless,fair"});
  EXPECT_TRUE(contains(unknown, "unknown policy 'fair'")) << unknown;
  EXPECT_TRUE(contains(unknown, "perbdi-2.6.24")) << unknown;  // the known ones are listed
  EXPECT_TRUE(contains(parseError({"--headless", "--compare", "ioless,,none"}), "empty"));
  EXPECT_TRUE(contains(parseError({"--headless", "--compare", "ioless,ioless"}), "twice"));
  EXPECT_TRUE(contains(parseError({"--compare", "ioless,none"}), "add --headless"));
  EXPECT_TRUE(contains(parseError({"--headless", "--compare", "ioless,none", "--policy", "none"}),
                       "--policy cannot be combined with --compare"));
  EXPECT_TRUE(contains(parseError({"--headless", "--compare", "ioless,none", "--csv", "x.csv"}),
                       "--csv cannot be combined with --compare"));
  EXPECT_TRUE(contains(parseError({"--headless", "--compare", "ioless,none", "--report", "r.txt"}),
                       ".md or .json"));
  for (const char* bad : {"0", "-1", "1001", "2.5", "x", ""})
    EXPECT_TRUE(
        contains(parseError({"--headless", "--compare", "ioless,none", "--seeds", bad}), "--seeds"))
        << bad;
}

TEST(CliOptions, ReportOptionsBelongToAComparisonOrAnExperiment) {
  EXPECT_TRUE(contains(parseError({"--headless", "--seeds", "2"}), "--seeds belongs to --compare"));
  EXPECT_TRUE(contains(parseError({"--headless", "--report", "r.md"}), "--report belongs to"));
  EXPECT_TRUE(contains(parseError({"--headless", "--quick"}), "--quick belongs to --experiment"));
}

TEST(CliOptions, ReadsAnExperiment) {
  const auto o = parseOk({"--experiment", "wu2010", "--seeds", "2", "--quick", "--report", "w.md"});
  EXPECT_EQ(o.mode, cli::Mode::Experiment);
  EXPECT_EQ(o.experiment, "wu2010");
  EXPECT_EQ(o.seeds, 2);
  EXPECT_TRUE(o.quick);
  EXPECT_EQ(o.report, "w.md");
  EXPECT_EQ(parseOk({"--experiment", "list"}).mode, cli::Mode::Experiment);
  EXPECT_EQ(parseOk({"--headless", "--experiment=morton2003"}).experiment, "morton2003");
  // The name is checked when it runs, so that the list of known ones comes from the engine.
  EXPECT_EQ(parseOk({"--experiment", "bogus"}).experiment, "bogus");
}

TEST(CliOptions, AnExperimentRunsItsOwnScenarios) {
  EXPECT_TRUE(contains(parseError({"--experiment", "wu2010", "--scenario", "ten-dd"}),
                       "--scenario cannot be combined with --experiment"));
  EXPECT_TRUE(contains(parseError({"--experiment", "wu2010", "ten-dd"}), "unexpected argument"));
  EXPECT_TRUE(contains(parseError({"--experiment", "wu2010", "--set", "machine.cpus=2"}),
                       "--set cannot be combined"));
  EXPECT_TRUE(contains(parseError({"--experiment", "wu2010", "--seed", "2"}), "--seeds N"));
  EXPECT_TRUE(contains(parseError({"--experiment", "wu2010", "--csv", "x.csv"}), "--csv"));
  EXPECT_TRUE(contains(parseError({"--experiment", "wu2010", "--run-for", "3"}), "--run-for"));
  EXPECT_TRUE(contains(parseError({"--experiment", "wu2010", "-platform", "offscreen"}), "Qt"));
  EXPECT_TRUE(
      contains(parseError({"--experiment", "list", "--quick"}), "--experiment list takes no"));
}

TEST(CliOptions, KnowsTheReportFormatFromTheFileName) {
  EXPECT_EQ(cli::reportFormatOf("-"), cli::ReportFormat::Markdown);
  EXPECT_EQ(cli::reportFormatOf("out/r.md"), cli::ReportFormat::Markdown);
  EXPECT_EQ(cli::reportFormatOf("r.markdown"), cli::ReportFormat::Markdown);
  EXPECT_EQ(cli::reportFormatOf("r.json"), cli::ReportFormat::Json);
  EXPECT_FALSE(cli::reportFormatOf("r.txt").has_value());
  EXPECT_FALSE(cli::reportFormatOf(".json").has_value());
  EXPECT_FALSE(cli::reportFormatOf("report").has_value());
}

TEST(CliOptions, ReadsTheTraceImportOptions) {
  const auto o = parseOk({"--import-trace", "trace.txt", "--csv", "out.csv", "--task-csv=t.csv",
                          "--simulate", "--this-host", "--report", "cmp.md"});
  EXPECT_EQ(o.mode, cli::Mode::ImportTrace);
  EXPECT_EQ(o.importTrace, "trace.txt");
  EXPECT_EQ(o.csv, "out.csv");
  EXPECT_EQ(o.taskCsv, "t.csv");
  EXPECT_TRUE(o.simulate);
  EXPECT_TRUE(o.thisHost);
  EXPECT_EQ(o.report, "cmp.md");
  // --headless is harmless: the import never opens a window.
  EXPECT_EQ(parseOk({"--headless", "--import-trace", "-"}).mode, cli::Mode::ImportTrace);
}

TEST(CliOptions, OpensATraceOrTheHostInTheWindow) {
  const auto o = parseOk({"--open-trace", "trace.txt"});
  EXPECT_EQ(o.mode, cli::Mode::Gui);
  EXPECT_EQ(o.openTrace, "trace.txt");
  EXPECT_FALSE(o.watchHost);
  EXPECT_TRUE(o.hasWindowOnlyOptions());
  const auto h = parseOk({"--watch-host", "--presenter"});
  EXPECT_EQ(h.mode, cli::Mode::Gui);
  EXPECT_TRUE(h.watchHost);
  EXPECT_TRUE(h.openTrace.empty());
  EXPECT_FALSE(parseOk({}).hasWindowOnlyOptions());
  EXPECT_TRUE(contains(parseError({"--headless", "--watch-host"}), "belongs to the window"));
  EXPECT_TRUE(contains(parseError({"--open-trace"}), "missing value for --open-trace"));
}

TEST(CliOptions, WatchesACgroupAndDrawsOneCgroupsRecords) {
  const auto w = parseOk({"--watch-cgroup", "memory/box"});
  EXPECT_EQ(w.mode, cli::Mode::Gui);
  EXPECT_TRUE(w.watchHost);  // watching a cgroup is live host mode
  EXPECT_EQ(w.watchCgroup, "memory/box");
  EXPECT_TRUE(w.hasWindowOnlyOptions());
  EXPECT_TRUE(contains(parseError({"--headless", "--watch-cgroup", "x"}), "belongs to the window"));

  const auto i = parseOk({"--import-trace", "t.txt", "--trace-cgroup", "4096", "--csv", "a.csv"});
  EXPECT_EQ(i.mode, cli::Mode::ImportTrace);
  EXPECT_EQ(i.traceCgroup, std::optional<std::uint64_t>(4096));
  const auto g = parseOk({"--open-trace", "t.txt", "--trace-cgroup=1"});
  EXPECT_EQ(g.mode, cli::Mode::Gui);
  EXPECT_EQ(g.traceCgroup, std::optional<std::uint64_t>(1));
  for (const char* bad : {"0", "-1", "x", "12a", "99999999999999999999999"})
    EXPECT_TRUE(contains(parseError({"--import-trace", "t.txt", "--trace-cgroup", bad}),
                         "--trace-cgroup needs a cgroup_ino"))
        << bad;
  EXPECT_TRUE(contains(parseError({"--trace-cgroup", "5"}), "needs --import-trace FILE"));
  EXPECT_TRUE(contains(parseError({"--import-trace", "t.txt", "--simulate", "--trace-cgroup", "5"}),
                       "cannot be combined with --simulate"));
}

TEST(CliOptions, ReadsTheTraceRecordingOptions) {
  const auto o = parseOk({"--record-trace", "out.txt", "--duration", "10"});
  EXPECT_EQ(o.mode, cli::Mode::RecordTrace);
  EXPECT_EQ(o.recordTrace, "out.txt");
  ASSERT_TRUE(o.durationS);
  EXPECT_EQ(*o.durationS, 10.0);
}

TEST(CliOptions, RejectsTraceOptionsOutOfPlace) {
  EXPECT_TRUE(contains(parseError({"--simulate"}), "--simulate needs --import-trace FILE"));
  EXPECT_TRUE(contains(parseError({"--this-host"}),
                       "--this-host belongs to --import-trace FILE --simulate"));
  EXPECT_TRUE(contains(parseError({"--import-trace", "t", "--this-host"}),
                       "--this-host belongs to --simulate"));
  EXPECT_TRUE(contains(parseError({"--import-trace", "t", "--report", "r.md"}),
                       "--report belongs to --simulate"));
  EXPECT_TRUE(contains(parseError({"--import-trace", "t", "--seed", "3"}),
                       "--seed cannot be combined with --import-trace"));
  EXPECT_TRUE(
      contains(parseError({"--import-trace", "t", "extra"}), "unexpected argument 'extra'"));
  EXPECT_TRUE(
      contains(parseError({"--import-trace", "t", "-style", "Fusion"}), "option of the window"));
  EXPECT_TRUE(contains(parseError({"--import-trace", "t", "--simulate", "--report", "r.txt"}),
                       "--report needs a file name ending in .md or .json"));
  EXPECT_TRUE(contains(parseError({"--record-trace", "t"}), "--record-trace needs --duration S"));
  EXPECT_TRUE(contains(parseError({"--record-trace", "t", "--duration", "0"}),
                       "--duration needs a number"));
  EXPECT_TRUE(
      contains(parseError({"--record-trace", "t", "--duration", "1", "--import-trace", "u"}),
               "cannot be combined"));
  EXPECT_TRUE(contains(parseError({"--import-trace"}), "missing value for --import-trace"));
}
