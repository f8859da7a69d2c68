// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// How the window shows quantities. Memory in MiB (or pages, a toggle); bandwidth always in
/// decimal MB/s, the unit disks are rated in (the tracepoints' KB/s are KiB/s).
#include <QString>

#include "throttlelab/engine/units.h"

namespace throttlelab::ui {

struct DisplayUnits {
  bool pages = false;  ///< show memory as 4 KiB pages instead of MiB

  double memory(double pageCount) const {
    return pages ? pageCount : engine::pagesToMiB(pageCount);
  }
  QString memoryUnit() const { return pages ? QStringLiteral("pages") : QStringLiteral("MiB"); }
  bool operator==(const DisplayUnits&) const = default;
};

/// KiB/s (the kernel's KBps()) to decimal MB/s.
constexpr double kbpsToMBps(double kbps) {
  return kbps * 1024.0 / 1e6;
}

}  // namespace throttlelab::ui
