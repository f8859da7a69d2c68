// SPDX-License-Identifier: GPL-3.0-or-later
#include "experiment_panel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QStyle>
#include <QTableView>
#include <QVBoxLayout>

#include "experiment_job.h"
#include "experiment_report_model.h"
#include "save_file.h"

namespace throttlelab::ui {

ExperimentPanel::ExperimentPanel(QWidget* parent)
    : QWidget(parent), m_job(new ExperimentJob(this)), m_model(new ExperimentReportModel(this)) {
  setObjectName(QStringLiteral("experimentPanel"));
  m_title = new QLabel(tr("Choose an experiment from the Experiments menu."));
  m_title->setWordWrap(true);
  m_title->setTextFormat(Qt::RichText);
  m_status = new QLabel;
  m_status->setWordWrap(true);
  m_progress = new QProgressBar;
  m_progress->setTextVisible(true);
  m_progress->setFormat(tr("%v of %m runs"));
  m_progress->hide();
  m_cancelButton = new QPushButton(tr("Cancel"));
  m_cancelButton->setEnabled(false);
  m_saveButton = new QPushButton(tr("Save report…"));
  m_saveButton->setEnabled(false);
  m_saveButton->setToolTip(tr("Markdown (.md) or JSON (.json)"));

  m_table = new QTableView;
  m_table->setObjectName(QStringLiteral("experimentTable"));
  m_table->setModel(m_model);
  m_table->verticalHeader()->hide();
  m_table->setWordWrap(false);
  m_table->setAlternatingRowColors(true);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  m_table->horizontalHeader()->setStretchLastSection(true);

  m_verdicts = new QListWidget;
  m_verdicts->setObjectName(QStringLiteral("experimentVerdicts"));
  m_verdicts->setWordWrap(true);
  m_verdicts->setAlternatingRowColors(true);
  m_verdicts->setIconSize(QSize(20, 20));

  auto* buttons = new QHBoxLayout;
  buttons->addWidget(m_progress);
  buttons->addWidget(m_cancelButton);
  buttons->addWidget(m_saveButton);

  auto* split = new QSplitter(Qt::Horizontal);
  split->addWidget(m_table);
  auto* verdictBox = new QWidget;
  auto* verdictLayout = new QVBoxLayout(verdictBox);
  verdictLayout->setContentsMargins(0, 0, 0, 0);
  verdictLayout->addWidget(new QLabel(tr("<b>Does the shape of the mail's result hold?</b>")));
  verdictLayout->addWidget(m_verdicts, 1);
  split->addWidget(verdictBox);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setSizes({900, 600});

  auto* layout = new QVBoxLayout(this);
  auto* header = new QHBoxLayout;
  auto* texts = new QVBoxLayout;
  texts->addWidget(m_title);
  texts->addWidget(m_status);
  header->addLayout(texts, 1);
  header->addLayout(buttons);
  m_progress->setMinimumWidth(240);
  layout->addLayout(header);
  layout->addWidget(split, 1);

  connect(m_cancelButton, &QPushButton::clicked, this, &ExperimentPanel::cancel);
  connect(m_saveButton, &QPushButton::clicked, this, &ExperimentPanel::saveRequested);
  connect(m_job, &ExperimentJob::progress, this, [this](int done, int total) {
    m_progress->setMaximum(total);
    m_progress->setValue(done);
    m_status->setText(tr("Running: %1 of %2 runs done…").arg(done).arg(total));
  });
  connect(m_job, &ExperimentJob::finished, this, &ExperimentPanel::showResult);
  connect(m_job, &ExperimentJob::cancelled, this, [this] {
    setBusy(false);
    m_status->setText(tr("Cancelled: no report. Choose the experiment again to rerun it."));
    Q_EMIT statusMessage(tr("Experiment cancelled"));
  });
  connect(m_job, &ExperimentJob::failed, this, [this](const QString& message) {
    setBusy(false);
    m_status->setText(tr("The experiment failed: %1").arg(message));
    Q_EMIT problem(tr("Experiment failed"),
                   tr("The experiment could not be run.\n\nReason: %1").arg(message));
  });
}

ExperimentPanel::~ExperimentPanel() = default;

void ExperimentPanel::run(const engine::Experiment& experiment, int seeds) {
  if (m_job->isRunning()) m_job->cancel();
  // A cancelled job still has to unwind its current case; wait for it rather than queueing.
  if (m_job->isRunning()) {
    m_status->setText(tr("Waiting for the previous run to stop…"));
    QMetaObject::Connection* once = new QMetaObject::Connection;
    auto restart = [this, experiment, seeds, once] {
      disconnect(*once);
      delete once;
      run(experiment, seeds);
    };
    *once = connect(m_job, &ExperimentJob::cancelled, this, restart);
    return;
  }
  m_experiment = experiment;
  m_model->clear();
  m_verdicts->clear();
  m_title->setText(tr("<b>%1</b> — %2%3")
                       .arg(QString::fromStdString(experiment.name),
                            QString::fromStdString(experiment.title).toHtmlEscaped(),
                            experiment.quick ? tr(" (quick form)") : QString()));
  m_title->setToolTip(QString::fromStdString(experiment.mailSummary));
  const int total = static_cast<int>(experiment.cases.size()) * seeds;
  m_progress->setMaximum(std::max(1, total));
  m_progress->setValue(0);
  m_status->setText(
      tr("Running %1 cases × %2 seeds in the background…").arg(experiment.cases.size()).arg(seeds));
  setBusy(true);
  m_job->start(experiment, seeds);
}

void ExperimentPanel::cancel() {
  if (!m_job->isRunning()) return;
  m_job->cancel();
  m_cancelButton->setEnabled(false);
  m_status->setText(tr("Cancelling after the current run…"));
}

bool ExperimentPanel::isRunning() const {
  return m_job->isRunning();
}

QString ExperimentPanel::statusText() const {
  return m_status->text();
}

void ExperimentPanel::setBusy(bool busy) {
  m_progress->setVisible(busy);
  m_cancelButton->setEnabled(busy);
  m_saveButton->setEnabled(!busy && m_model->result() != nullptr);
}

void ExperimentPanel::showResult(std::shared_ptr<const engine::ExperimentResult> result) {
  m_model->setResult(result);
  m_verdicts->clear();
  const QIcon yes = style()->standardIcon(QStyle::SP_DialogApplyButton);
  const QIcon no = style()->standardIcon(QStyle::SP_MessageBoxCritical);
  for (const auto& v : result->verdicts) {
    auto* item = new QListWidgetItem(
        v.holds ? yes : no,
        (v.holds ? tr("Holds: %1") : tr("Does not hold: %1")).arg(QString::fromStdString(v.claim)) +
            QStringLiteral("\n    ") + QString::fromStdString(v.detail));
    item->setToolTip(QString::fromStdString(v.detail));
    item->setData(Qt::UserRole, v.holds);
    m_verdicts->addItem(item);
  }
  m_table->resizeColumnsToContents();
  for (int c = 0; c < m_model->columnCount() - 1; ++c)
    m_table->setColumnWidth(c, std::min(m_table->columnWidth(c), 320));
  setBusy(false);
  const QString summary = tr("%1 of %2 verdicts hold (%3 seeds per case).")
                              .arg(m_model->holdingVerdicts())
                              .arg(result->verdicts.size())
                              .arg(result->seeds);
  m_status->setText(summary);
  Q_EMIT statusMessage(
      tr("Experiment %1 finished: %2").arg(QString::fromStdString(result->experiment), summary));
}

QString ExperimentPanel::saveReport(const QString& path) const {
  const auto result = m_model->result();
  if (!result || !m_experiment) return tr("There is no report to save yet.");
  const std::string text = path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive)
                               ? engine::experimentReportJson(*result)
                               : engine::experimentReportMarkdown(*m_experiment, *result);
  SaveFile file(path);
  if (!file.open(QIODevice::WriteOnly))
    return tr("Cannot write %1: %2.").arg(path, file.errorString());
  file.write(text.data(), static_cast<qint64>(text.size()));
  if (!file.commit()) return tr("Cannot write %1: %2.").arg(path, file.errorString());
  return {};
}

}  // namespace throttlelab::ui
