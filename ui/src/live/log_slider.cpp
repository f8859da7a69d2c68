// SPDX-License-Identifier: GPL-3.0-or-later
#include "log_slider.h"

#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QSignalBlocker>
#include <QSlider>
#include <algorithm>
#include <cmath>

namespace throttlelab::ui {

namespace {
constexpr int kSteps = 1000;
}

LogSlider::LogSlider(double minimum, double maximum, int decimals, const QString& unit,
                     bool allowZero, QWidget* parent)
    : QWidget(parent),
      m_min(minimum),
      m_max(maximum),
      m_allowZero(allowZero),
      m_decimals(decimals),
      m_unit(unit),
      m_slider(new QSlider(Qt::Horizontal, this)),
      m_spin(new QDoubleSpinBox(this)) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  m_slider->setRange(0, kSteps);
  m_slider->setMinimumWidth(90);
  m_spin->setDecimals(decimals);
  m_spin->setRange(allowZero ? 0 : minimum, maximum);
  m_spin->setSuffix(QStringLiteral(" ") + unit);
  m_spin->setKeyboardTracking(false);
  m_spin->setAccelerated(true);
  m_spin->setMinimumWidth(110);
  layout->addWidget(m_slider, 1);
  layout->addWidget(m_spin);
  connect(m_slider, &QSlider::valueChanged, this, [this](int pos) {
    const double v = valueAt(pos);
    const QSignalBlocker block(m_spin);
    m_spin->setValue(v);
    updateSuffix();
    Q_EMIT valueChanged(m_spin->value());
  });
  connect(m_spin, &QDoubleSpinBox::valueChanged, this, [this](double v) {
    const QSignalBlocker block(m_slider);
    m_slider->setValue(positionOf(v));
    updateSuffix();
    Q_EMIT valueChanged(v);
  });
}

double LogSlider::value() const {
  return m_spin->value();
}

void LogSlider::setValue(double v) {
  const QSignalBlocker b1(m_slider);
  const QSignalBlocker b2(m_spin);
  m_spin->setValue(v);
  m_slider->setValue(positionOf(v));
  updateSuffix();
}

void LogSlider::setSingularUnit(const QString& unit) {
  m_singular = unit;
  updateSuffix();
}

void LogSlider::setLowEndPower(double power) {
  m_power = std::max(1.0, power);
  const QSignalBlocker block(m_slider);
  m_slider->setValue(positionOf(m_spin->value()));
}

void LogSlider::updateSuffix() {
  const bool one = !m_singular.isEmpty() && m_spin->value() == 1.0;
  m_spin->setSuffix(QStringLiteral(" ") + (one ? m_singular : m_unit));
}

int LogSlider::positionOf(double v) const {
  // With allowZero, position 0 is exactly zero and the log scale starts at position 1.
  const int first = m_allowZero ? 1 : 0;
  if (m_allowZero && v < m_min) return 0;
  double t = std::log(std::clamp(v, m_min, m_max) / m_min) / std::log(m_max / m_min);
  t = std::pow(t, 1 / m_power);
  return first + static_cast<int>(std::lround(t * (kSteps - first)));
}

double LogSlider::valueAt(int position) const {
  const int first = m_allowZero ? 1 : 0;
  if (m_allowZero && position == 0) return 0;
  const double t = std::pow(static_cast<double>(position - first) / (kSteps - first), m_power);
  const double v = m_min * std::pow(m_max / m_min, t);
  const double scale = std::pow(10.0, m_decimals);
  return std::round(v * scale) / scale;
}

}  // namespace throttlelab::ui
