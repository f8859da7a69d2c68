// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The one header that includes <qcustomplot.h> (about 7,700 lines). Include it from .cpp files
/// only; headers forward-declare the QCustomPlot classes they mention.
#include <qcustomplot.h>
