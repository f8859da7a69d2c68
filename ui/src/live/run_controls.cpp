// SPDX-License-Identifier: GPL-3.0-or-later
#include "run_controls.h"

#include <QEvent>
#include <QPainter>

#include <QComboBox>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStyle>
#include <cmath>
#include <limits>

namespace throttlelab::ui {

namespace {
constexpr int kOpenFileRole = Qt::UserRole + 1;
}

const QList<double>& RunControls::speeds() {
  static const QList<double> kSpeeds = {0.1, 0.25, 0.5, 1,   2,   5,    10,
                                        20,  50,   100, 200, 500, 1000, 0};
  return kSpeeds;
}

RunControls::RunControls(QWidget* parent) : QToolBar(tr("Run controls"), parent) {
  setObjectName(QStringLiteral("runControls"));
  setToolButtonStyle(Qt::ToolButtonTextBesideIcon);

  m_run = addAction(icon(QStyle::SP_MediaPlay), tr("Run"));
  m_run->setObjectName(QStringLiteral("runAction"));
  m_run->setCheckable(true);
  m_run->setShortcut(Qt::Key_Space);
  m_run->setToolTip(tr("Run or pause the simulation (Space)"));
  connect(m_run, &QAction::toggled, this, [this](bool on) {
    setRunning(on);
    Q_EMIT runToggled(on);
  });
  m_step = addAction(icon(QStyle::SP_MediaSkipForward), tr("Step"));
  m_step->setObjectName(QStringLiteral("stepAction"));
  m_step->setShortcut(Qt::Key_Period);
  m_step->setToolTip(tr("Pause and advance one 200 ms control period (.)"));
  connect(m_step, &QAction::triggered, this, &RunControls::stepRequested);
  m_reset = addAction(icon(QStyle::SP_BrowserReload), tr("Reset"));
  m_reset->setObjectName(QStringLiteral("resetAction"));
  m_reset->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  m_reset->setToolTip(tr("Restart the run from t = 0 with the current settings and seed (Ctrl+R)"));
  connect(m_reset, &QAction::triggered, this, &RunControls::resetRequested);

  addSeparator();
  addWidget(new QLabel(tr(" Speed "), this));
  m_speed = new QComboBox(this);
  m_speed->setObjectName(QStringLiteral("speed"));
  for (double s : speeds())
    m_speed->addItem(s > 0 ? QStringLiteral("%1×").arg(s) : tr("as fast as possible"), s);
  m_speed->setToolTip(tr("Simulated seconds per wall-clock second"));
  addWidget(m_speed);
  connect(m_speed, &QComboBox::currentIndexChanged, this, [this] { Q_EMIT speedChanged(speed()); });

  addWidget(new QLabel(tr("  Seed "), this));
  m_seed = new QSpinBox(this);
  m_seed->setObjectName(QStringLiteral("seed"));
  m_seed->setRange(0, std::numeric_limits<int>::max());
  m_seed->setKeyboardTracking(false);
  m_seed->setToolTip(tr("Random seed; takes effect on Reset"));
  addWidget(m_seed);
  connect(m_seed, &QSpinBox::valueChanged, this,
          [this](int v) { Q_EMIT seedChanged(static_cast<std::uint64_t>(v)); });

  addWidget(new QLabel(tr("  Scenario "), this));
  m_scenario = new QComboBox(this);
  m_scenario->setObjectName(QStringLiteral("scenario"));
  m_scenario->setMinimumContentsLength(12);
  m_scenario->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  addWidget(m_scenario);
  connect(m_scenario, &QComboBox::activated, this, [this](int i) {
    if (m_scenario->itemData(i, kOpenFileRole).toBool())
      Q_EMIT openScenarioRequested();
    else
      Q_EMIT scenarioPicked(m_scenario->itemText(i));
  });

  addWidget(new QLabel(tr("  History "), this));
  m_history = new QComboBox(this);
  m_history->setObjectName(QStringLiteral("history"));
  m_history->addItem(tr("last 60 s"), static_cast<int>(HistoryWindow::Last60s));
  m_history->addItem(tr("last 10 min"), static_cast<int>(HistoryWindow::Last10min));
  m_history->addItem(tr("everything"), static_cast<int>(HistoryWindow::Everything));
  m_history->setToolTip(tr("How much simulated time the plots keep"));
  addWidget(m_history);
  connect(m_history, &QComboBox::currentIndexChanged, this, [this] {
    Q_EMIT historyWindowChanged(static_cast<HistoryWindow>(m_history->currentData().toInt()));
  });

  addSeparator();
  m_follow = addAction(tr("Follow live"));
  m_follow->setObjectName(QStringLiteral("followAction"));
  m_follow->setCheckable(true);
  m_follow->setChecked(true);
  m_follow->setShortcut(Qt::Key_F);
  m_follow->setToolTip(tr("Keep the newest data in view (F)"));
  connect(m_follow, &QAction::toggled, this, &RunControls::followToggled);
  m_fit = addAction(tr("Fit all"));
  m_fit->setObjectName(QStringLiteral("fitAction"));
  m_fit->setShortcut(Qt::Key_A);
  m_fit->setToolTip(tr("Show everything kept (A)"));
  connect(m_fit, &QAction::triggered, this, &RunControls::fitAllRequested);

  setSpeed(1);
  setHistoryWindow(HistoryWindow::Last10min);
}

void RunControls::setRunning(bool running) {
  const QSignalBlocker block(m_run);
  m_run->setChecked(running);
  m_run->setText(running ? tr("Pause") : tr("Run"));
  m_run->setIcon(icon(running ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
}

QIcon RunControls::icon(QStyle::StandardPixmap which) const {
  // The style's icons are drawn dark; on a dark palette they vanish. Keep their shape and
  // paint it in the palette's button text colour.
  const QIcon standard = style()->standardIcon(which);
  QIcon tinted;
  for (const int size : {16, 24, 32}) {
    QPixmap pixmap = standard.pixmap(size, size);
    QPainter painter(&pixmap);
    painter.setCompositionMode(QPainter::CompositionMode_SourceIn);
    painter.fillRect(pixmap.rect(), palette().color(QPalette::ButtonText));
    painter.end();
    tinted.addPixmap(pixmap);
  }
  return tinted;
}

void RunControls::changeEvent(QEvent* event) {
  QToolBar::changeEvent(event);
  if (event->type() != QEvent::PaletteChange && event->type() != QEvent::ApplicationPaletteChange &&
      event->type() != QEvent::StyleChange)
    return;
  setRunning(m_run->isChecked());
  m_step->setIcon(icon(QStyle::SP_MediaSkipForward));
  m_reset->setIcon(icon(QStyle::SP_BrowserReload));
}

void RunControls::setSpeed(double factor) {
  const QSignalBlocker block(m_speed);
  int best = -1;
  double bestDistance = std::numeric_limits<double>::infinity();
  for (int i = 0; i < m_speed->count(); ++i) {
    const double s = m_speed->itemData(i).toDouble();
    if ((factor <= 0) != (s <= 0)) continue;
    const double distance = factor <= 0 ? 0 : std::abs(std::log(s / factor));
    if (distance < bestDistance) {
      best = i;
      bestDistance = distance;
    }
  }
  m_speed->setCurrentIndex(best);
}

double RunControls::speed() const {
  return m_speed->currentData().toDouble();
}

void RunControls::setSeed(std::uint64_t seed) {
  const QSignalBlocker block(m_seed);
  m_seed->setValue(
      static_cast<int>(std::min<std::uint64_t>(seed, std::numeric_limits<int>::max())));
}

void RunControls::setScenarioNames(const QStringList& builtins) {
  const QSignalBlocker block(m_scenario);
  const QString current = m_scenario->currentText();
  m_scenario->clear();
  m_scenario->addItems(builtins);
  m_scenario->insertSeparator(m_scenario->count());
  m_scenario->addItem(tr("Open file…"));
  m_scenario->setItemData(m_scenario->count() - 1, true, kOpenFileRole);
  setCurrentScenario(current);
}

void RunControls::setCurrentScenario(const QString& name) {
  const QSignalBlocker block(m_scenario);
  int i = m_scenario->findText(name);
  if (i < 0 && !name.isEmpty()) {
    // A scenario from a file: show its name above the built-ins.
    m_scenario->insertItem(0, name);
    i = 0;
  }
  m_scenario->setCurrentIndex(i);
}

void RunControls::setHistoryWindow(HistoryWindow window) {
  const QSignalBlocker block(m_history);
  m_history->setCurrentIndex(m_history->findData(static_cast<int>(window)));
}

void RunControls::setFollowLive(bool follow) {
  const QSignalBlocker block(m_follow);
  m_follow->setChecked(follow);
}

}  // namespace throttlelab::ui
