// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Installs a base-2 logarithmic scale whose tick labels read 1/4, 1/2, 1, 2, 4, ...
class QCPAxis;

namespace throttlelab::ui {

void makeLog2Axis(QCPAxis* axis);

}  // namespace throttlelab::ui
