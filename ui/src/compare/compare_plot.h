// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// A time plot of the compare view: the same few curves for run A and run B, each run in its
/// own colour (A blue, B vermillion: Okabe–Ito), the legend naming the run's policy.
#include <QString>
#include <optional>

#include "time_plot.h"

namespace throttlelab::ui {

class ComparePlot final : public TimePlot {
  Q_OBJECT

 public:
  /// `id` picks the content: DirtyPages (dirty+writeback, setpoint, limit), Pauses (median
  /// pause per interval), Bandwidth (device writes).
  ComparePlot(PlotId id, QWidget* parentWidget);

  /// Names the runs in the legend: "ioless dirty+writeback", …
  void setRunNames(const QString& a, const QString& b);
  static constexpr int kRuns = 2;
  /// A labelled vertical line at the moment run B branched from run A (none: hidden).
  void setBranchMark(std::optional<double> timeS, const QString& label);
  /// The branch mark's label ("" when there is none).
  QString branchMarkLabel() const;
  std::optional<double> branchMarkTime() const;
  void applyTheme(const Theme& theme) override;

 protected:
  void updateAxisTitles() override;

 private:
  struct Curve {
    QString what;
    int series;
  };
  std::vector<Curve> m_curves;
  QCPItemStraightLine* m_branchLine = nullptr;
  QCPItemText* m_branchLabel = nullptr;
};

}  // namespace throttlelab::ui
