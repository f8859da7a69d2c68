// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// A slider on a logarithmic scale paired with a spin box that shows the exact value and its
/// unit. Either edits the value; valueChanged is emitted for user edits only.
#include <QWidget>

class QSlider;
class QDoubleSpinBox;

namespace throttlelab::ui {

class LogSlider : public QWidget {
  Q_OBJECT

 public:
  /// [minimum, maximum] with minimum > 0, plus an optional exact zero at the far left.
  LogSlider(double minimum, double maximum, int decimals, const QString& unit,
            bool allowZero = false, QWidget* parent = nullptr);
  /// Unit shown when the value is exactly one ("1 writer", not "1 writers").
  void setSingularUnit(const QString& unit);
  /// Spreads the low end: the slider's travel t in [0, 1] maps to min · (max/min)^(t^power)
  /// instead of a plain log scale (power 1). With power 2 and 1 to 10,000, the first half of
  /// the travel covers 1 to 10 in single steps; the top still reaches the maximum.
  void setLowEndPower(double power);

  double value() const;
  /// Sets the shown value without emitting valueChanged.
  void setValue(double v);
  QSlider* slider() const { return m_slider; }
  QDoubleSpinBox* spinBox() const { return m_spin; }

 Q_SIGNALS:
  void valueChanged(double value);

 private:
  int positionOf(double v) const;
  void updateSuffix();
  double valueAt(int position) const;

  double m_min;
  double m_max;
  bool m_allowZero;
  int m_decimals;
  QString m_unit;
  QString m_singular;
  double m_power = 1;
  QSlider* m_slider;
  QDoubleSpinBox* m_spin;
};

}  // namespace throttlelab::ui
