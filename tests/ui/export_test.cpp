// SPDX-License-Identifier: GPL-3.0-or-later
// Exports: PNG that is not blank and carries its provenance, well-formed SVG, a PDF, and CSV
// with the headless --csv columns; devices, FIFOs and symbolic links written by the output
// rules; and the scripted --run-for path.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <QFile>
#include <QFileInfo>
#include <QImageReader>
#include <QSet>
#include <QStatusBar>
#include <QXmlStreamReader>
#include <map>
#include <sstream>
#include <vector>

#include "dashboard.h"
#include "exporter.h"
#include "live_controller.h"
#include "qcp.h"
#include "throttlelab/engine/output.h"
#include "throttlelab/engine/simulator.h"
#include "window_parts.h"
#include "window_rig.h"

namespace throttlelab::ui {
namespace {

using test::part;
using test::partPtr;

using test::WindowRig;

/// One window that has run five simulated seconds, shared by the export tests.
class Export : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    GuiLaunchOptions options;
    options.runForS = 5;  // scripted mode: paused until the job runs, and no decimation
    s_rig = new WindowRig(options);
    s_rig->window->resize(1500, 950);
    s_rig->window->show();
    bool finished = false;
    QObject::connect(&part<LiveController>(*s_rig->window, "liveController"),
                     &LiveController::runForFinished, [&finished] { finished = true; });
    part<LiveController>(*s_rig->window, "liveController").runFor(5);
    ASSERT_TRUE(test::waitFor([&] { return finished; }));
    QCoreApplication::processEvents();
  }
  static void TearDownTestSuite() {
    delete s_rig;
    s_rig = nullptr;
  }
  static MainWindow& window() { return *s_rig->window; }
  static QString path(const QString& name) { return s_rig->path(name); }
  static QString exportTo(const QString& name, ExportFormat f, std::optional<PlotId> plot = {}) {
    const QString p = path(name);
    const QString error = window().exportTo(p, ExportChoice{.plot = plot, .format = f});
    EXPECT_TRUE(error.isEmpty()) << error.toStdString();
    return p;
  }

  static WindowRig* s_rig;
};
WindowRig* Export::s_rig = nullptr;

int distinctColours(const QImage& image) {
  QSet<QRgb> colours;
  for (int y = 0; y < image.height(); y += 2)
    for (int x = 0; x < image.width(); x += 2) colours.insert(image.pixel(x, y));
  return static_cast<int>(colours.size());
}

TEST_F(Export, PngIsNotBlankAndCarriesItsProvenance) {
  const QString p = exportTo(QStringLiteral("dash.png"), ExportFormat::Png1x);
  QImageReader reader(p);
  const QImage image = reader.read();
  ASSERT_FALSE(image.isNull()) << reader.errorString().toStdString();
  EXPECT_GT(image.width(), 600);
  EXPECT_GT(image.height(), 400);
  EXPECT_GT(distinctColours(image), 40);
  // The PNG text chunks, as decoded from the file.
  EXPECT_EQ(image.text(QStringLiteral("Scenario")), QStringLiteral("default"));
  EXPECT_EQ(image.text(QStringLiteral("Seed")), QStringLiteral("1"));
  EXPECT_TRUE(image.text(QStringLiteral("Software")).startsWith(QStringLiteral("ThrottleLab ")));
  const QString json = image.text(QStringLiteral("ScenarioJSON"));
  EXPECT_EQ(engine::parseScenario(json.toStdString(), "png"),
            part<LiveController>(window(), "liveController").scenario());
}

TEST_F(Export, PngAtTwiceTheScaleHasTwiceThePixels) {
  const QImage one(exportTo(QStringLiteral("one.png"), ExportFormat::Png1x, PlotId::DirtyPages));
  const QImage two(exportTo(QStringLiteral("two.png"), ExportFormat::Png2x, PlotId::DirtyPages));
  ASSERT_FALSE(one.isNull());
  EXPECT_EQ(two.width(), one.width() * 2);
  EXPECT_EQ(two.height(), one.height() * 2);
  EXPECT_EQ(one.size(),
            part<Dashboard>(window(), "dashboard").plotWidget(PlotId::DirtyPages)->size());
  EXPECT_GT(distinctColours(two), 40);
}

TEST_F(Export, EachPlotExportsAlone) {
  for (PlotId id : kAllPlots) {
    const QImage image(exportTo(plotKey(id) + QStringLiteral(".png"), ExportFormat::Png1x, id));
    ASSERT_FALSE(image.isNull()) << plotKey(id).toStdString();
    EXPECT_GT(distinctColours(image), 20) << plotKey(id).toStdString();
  }
}

TEST_F(Export, SvgIsWellFormedWithTitleAndDescription) {
  QFile f(exportTo(QStringLiteral("dash.svg"), ExportFormat::Svg));
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  QXmlStreamReader xml(&f);
  QString title, desc;
  int paths = 0, clips = 0;
  while (!xml.atEnd()) {
    xml.readNext();
    if (!xml.isStartElement()) continue;
    if (xml.name() == QLatin1String("title"))
      title = xml.readElementText();
    else if (xml.name() == QLatin1String("desc"))
      desc = xml.readElementText();
    else if (xml.name() == QLatin1String("path") || xml.name() == QLatin1String("polyline"))
      ++paths;
    else if (xml.name() == QLatin1String("clipPath"))
      ++clips;
  }
  EXPECT_FALSE(xml.hasError()) << xml.errorString().toStdString();
  EXPECT_TRUE(title.contains(QStringLiteral("default"))) << title.toStdString();
  EXPECT_TRUE(desc.contains(QStringLiteral("Seed: 1"))) << desc.toStdString();
  EXPECT_TRUE(desc.contains(QStringLiteral("ThrottleLab"))) << desc.toStdString();
  EXPECT_GT(paths, 20);
  // Each plot's data is clipped to its axis rect (QSvgGenerator itself drops clipping).
  EXPECT_EQ(clips, static_cast<int>(part<Dashboard>(window(), "dashboard").visiblePlots().size()));
}

TEST_F(Export, PdfIsWritten) {
  QFile f(exportTo(QStringLiteral("dash.pdf"), ExportFormat::Pdf));
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  const QByteArray pdf = f.readAll();
  EXPECT_TRUE(pdf.startsWith("%PDF-"));
  EXPECT_GT(pdf.size(), 5000);
  EXPECT_TRUE(pdf.contains("%%EOF"));
}

struct Csv {
  QStringList comments;
  QStringList header;
  QList<QStringList> rows;
};

Csv readCsv(const QString& p) {
  QFile f(p);
  Csv csv;
  if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) return csv;
  while (!f.atEnd()) {
    const QString line = QString::fromUtf8(f.readLine()).trimmed();
    if (line.isEmpty()) continue;
    if (line.startsWith('#'))
      csv.comments << line;
    else if (csv.header.isEmpty())
      csv.header = line.split(',');
    else
      csv.rows << line.split(',');
  }
  return csv;
}

TEST_F(Export, CsvHasTheHeadlessColumnsAndEverySampleKept) {
  const Csv csv = readCsv(exportTo(QStringLiteral("all.csv"), ExportFormat::CsvAll));
  QStringList expected;
  for (const auto& c : engine::sampleCsvColumns(1)) expected << QString::fromStdString(c);
  EXPECT_EQ(csv.header, expected);
  EXPECT_TRUE(csv.comments.join('\n').contains(QStringLiteral("scenario: default")));
  EXPECT_TRUE(csv.comments.join('\n').contains(QStringLiteral("seed: 1")));
  const auto& history = part<LiveController>(window(), "liveController").history();
  ASSERT_EQ(static_cast<std::size_t>(csv.rows.size()), history.size());
  for (const auto& row : csv.rows) ASSERT_EQ(row.size(), expected.size());
  EXPECT_NEAR(csv.rows.back().front().toDouble(), 5.0, 1e-6);
  EXPECT_EQ(csv.rows.size(), 50);  // 0.1 s samples, none folded in a scripted run
}

TEST_F(Export, CsvOfTheVisibleRangeHasOnlyThatRange) {
  part<Dashboard>(window(), "dashboard").setTimeRange(1.0, 2.0);
  const Csv csv = readCsv(exportTo(QStringLiteral("visible.csv"), ExportFormat::CsvVisible));
  part<Dashboard>(window(), "dashboard").setFollowLive(true);
  ASSERT_FALSE(csv.rows.isEmpty());
  for (const auto& row : csv.rows) {
    const double t = row.front().toDouble();
    EXPECT_GE(t, 1.0 - 1e-9);
    EXPECT_LE(t, 2.0 + 1e-9);
  }
  EXPECT_EQ(csv.rows.size(), 11);
}

TEST_F(Export, TaskCsvHasTheHeadlessTaskRowsOfTheTasksDrawn) {
  const Csv csv = readCsv(exportTo(QStringLiteral("tasks.csv"), ExportFormat::TaskCsv));
  QStringList expected;
  for (const auto& c : engine::taskCsvColumns()) expected << QString::fromStdString(c);
  EXPECT_EQ(csv.header, expected);
  EXPECT_TRUE(csv.comments.join('\n').contains(QStringLiteral("scenario: default")));
  // The default scenario has fewer tasks than the window draws, so these are all its rows: the
  // rows a headless --task-csv of the same five seconds writes.
  const auto& controller = part<LiveController>(window(), "liveController");
  engine::Scenario s = controller.scenario();
  s.durationS = 5;
  struct Rows : engine::RecordSink {
    std::map<int, engine::TaskInfo> infos;
    std::vector<engine::TaskSample> samples;
    void onTaskCreated(const engine::TaskInfo& i) override { infos[i.index] = i; }
    void onTaskSample(const engine::TaskSample& t) override { samples.push_back(t); }
  } headless;
  engine::Simulator sim(s);
  engine::OutputOptions o;
  o.taskSamples = true;
  sim.setSink(&headless, o);
  sim.run();
  QList<QStringList> rows;
  for (const auto& t : headless.samples) {
    std::ostringstream line;
    engine::writeTaskCsvRow(line, t, headless.infos.at(t.task));
    rows << QString::fromStdString(line.str()).trimmed().split(',');
  }
  ASSERT_FALSE(rows.isEmpty());
  EXPECT_EQ(csv.rows, rows);
}

TEST(ExportCgroups, CsvHasTheCgroupColumnsOfTheHeadlessCsv) {
  GuiLaunchOptions options;
  options.scenario = "container-writer";
  options.runForS = 3;
  WindowRig rig(options);
  bool finished = false;
  auto& controller = part<LiveController>(*rig.window, "liveController");
  QObject::connect(&controller, &LiveController::runForFinished, [&finished] { finished = true; });
  controller.runFor(3);
  ASSERT_TRUE(test::waitFor([&] { return finished; }));
  const QString file = rig.path(QStringLiteral("cgroups.csv"));
  const QString error =
      rig.window->exportTo(file, ExportChoice{.plot = {}, .format = ExportFormat::CsvAll});
  ASSERT_TRUE(error.isEmpty()) << error.toStdString();
  const Csv csv = readCsv(file);
  // The headless --csv's columns for this scenario, the 14 of its cgroup "box" included.
  QStringList expected;
  for (const auto& c : engine::sampleCsvColumns(1, {"box"})) expected << QString::fromStdString(c);
  ASSERT_EQ(csv.header, expected);
  ASSERT_EQ(expected.size() - static_cast<int>(engine::sampleCsvColumns(1).size()), 14);
  ASSERT_FALSE(csv.rows.isEmpty());
  const auto value = [&](const char* column) {
    return csv.rows.back().at(static_cast<int>(csv.header.indexOf(QLatin1String(column))));
  };
  EXPECT_EQ(value("cgroup_box_max_pages"), QStringLiteral("262144"));  // memory.max 1 GiB
  EXPECT_GT(value("cgroup_box_file_pages").toLongLong(), 0);
  EXPECT_GT(value("cgroup_box_thresh_pages").toLongLong(), 0);
  for (const auto& row : csv.rows) ASSERT_EQ(row.size(), expected.size());
}

TEST_F(Export, UnwritablePathIsReported) {
  const QString error = window().exportTo(QStringLiteral("/nonexistent-dir/x.png"),
                                          ExportChoice{.format = ExportFormat::Png1x});
  EXPECT_TRUE(error.contains(QStringLiteral("/nonexistent-dir/x.png"))) << error.toStdString();
}

// Exports follow the command line's output rules (host/output_target.h): QSaveFile renamed
// its temporary file over whatever the path named.

TEST_F(Export, ADeviceNodeIsWrittenInPlaceNeverReplaced) {
  const QString node = path(QStringLiteral("null"));
  if (::mknod(QFile::encodeName(node).constData(), S_IFCHR | 0666, makedev(1, 3)) != 0)
    GTEST_SKIP() << "cannot make a device node here";
  for (const ExportFormat format :
       {ExportFormat::Png1x, ExportFormat::Svg, ExportFormat::Pdf, ExportFormat::CsvAll}) {
    const QString error = window().exportTo(node, ExportChoice{.format = format});
    EXPECT_TRUE(error.isEmpty()) << error.toStdString();
    struct stat st {};
    ASSERT_EQ(::lstat(QFile::encodeName(node).constData(), &st), 0);
    ASSERT_TRUE(S_ISCHR(st.st_mode)) << "the device node was replaced by a file";
    EXPECT_EQ(st.st_rdev, makedev(1, 3));
  }
  ::unlink(QFile::encodeName(node).constData());
}

TEST_F(Export, AFifoGetsTheWholeCsvAndStaysAFifo) {
  const QByteArray fifo = QFile::encodeName(path(QStringLiteral("pipe")));
  ASSERT_EQ(::mkfifo(fifo.constData(), 0644), 0);
  // Opened first and without blocking: the export's open then succeeds, and the CSV (about
  // 15 kB) fits in the pipe's buffer, so nothing waits for this reader.
  const int reader = ::open(fifo.constData(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  const QString error =
      window().exportTo(QString::fromLocal8Bit(fifo), ExportChoice{.format = ExportFormat::CsvAll});
  EXPECT_TRUE(error.isEmpty()) << error.toStdString();
  QByteArray received;
  char buffer[4096];
  for (ssize_t n; (n = ::read(reader, buffer, sizeof buffer)) > 0;)
    received.append(buffer, static_cast<qsizetype>(n));
  ::close(reader);
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.constData(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced by a file";
  QFile file(exportTo(QStringLiteral("same.csv"), ExportFormat::CsvAll));
  ASSERT_TRUE(file.open(QIODevice::ReadOnly));
  EXPECT_EQ(received, file.readAll());  // what a file of the same export holds
  ::unlink(fifo.constData());
}

TEST_F(Export, ASymbolicLinksTargetIsReplacedAndTheLinkStays) {
  const QString target = path(QStringLiteral("target.svg"));
  const QString link = path(QStringLiteral("link.svg"));
  {
    QFile old(target);
    ASSERT_TRUE(old.open(QIODevice::WriteOnly));
    old.write("old");
  }
  ASSERT_TRUE(QFile::link(QStringLiteral("target.svg"), link));
  const QString error = window().exportTo(link, ExportChoice{.format = ExportFormat::Svg});
  EXPECT_TRUE(error.isEmpty()) << error.toStdString();
  EXPECT_EQ(QFileInfo(link).symLinkTarget(), QFileInfo(target).absoluteFilePath());
  QFile svg(target);
  ASSERT_TRUE(svg.open(QIODevice::ReadOnly));
  EXPECT_TRUE(svg.readAll().contains("<svg"));
}

TEST(ScriptedFigures, RunForThenExports) {
  QTemporaryDir dir;
  GuiLaunchOptions options;
  options.scenario = "one-dd";
  options.runForS = 3;
  options.exportPng = dir.filePath(QStringLiteral("shot.png")).toStdString();
  options.exportCsv = dir.filePath(QStringLiteral("shot.csv")).toStdString();
  options.exportSvg = dir.filePath(QStringLiteral("shot.svg")).toStdString();
  WindowRig rig(options);
  rig.window->show();
  rig.window->startScriptedJob();
  ASSERT_TRUE(test::waitFor([&] {
    return rig.window->statusBar()->currentMessage().contains(QStringLiteral("finished"));
  }));
  EXPECT_TRUE(rig.window->statusBar()->currentMessage().contains(QStringLiteral("written")));
  const QImage shot(QString::fromStdString(options.exportPng));
  ASSERT_FALSE(shot.isNull());
  EXPECT_GT(distinctColours(shot), 40);
  const Csv csv = readCsv(QString::fromStdString(options.exportCsv));
  ASSERT_EQ(csv.rows.size(), 30);
  EXPECT_NEAR(csv.rows.back().front().toDouble(), 3.0, 1e-6);
  EXPECT_TRUE(QFile::exists(QString::fromStdString(options.exportSvg)));
  EXPECT_FALSE(part<LiveController>(*rig.window, "liveController").isRunning());
}

TEST(ScriptedFigures, FailedExportGivesNonZeroStatus) {
  GuiLaunchOptions options;
  options.scenario = "one-dd";
  options.runForS = 1;
  options.exportPng = "/nonexistent-dir/shot.png";
  WindowRig rig(options);
  rig.window->startScriptedJob();
  ASSERT_TRUE(test::waitFor([&] {
    return rig.window->statusBar()->currentMessage().contains(QStringLiteral("finished"));
  }));
  EXPECT_TRUE(rig.window->statusBar()->currentMessage().contains(QStringLiteral("failed")));
}

}  // namespace
}  // namespace throttlelab::ui
