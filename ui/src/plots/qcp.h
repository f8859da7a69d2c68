// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The one header that includes <qcustomplot.h> (about 7,700 lines). Include it from .cpp files
/// only; headers forward-declare the QCustomPlot classes they mention.
///
/// <qcustomplot.h> includes <QtPrintSupport/QtPrintSupport>, the module's umbrella header,
/// which includes every header of QtCore, QtGui and QtWidgets: 310,000 preprocessed lines, most
/// of the compile time of a file that includes it (docs/performance.md, "Building"). What
/// QCustomPlot's declarations use of Qt it includes by name, or comes with QWidget and QPrinter:
/// with the umbrella's include guard defined first, the rest stays out. A file that uses more of
/// Qt includes it itself.
#include <QtPrintSupport/qprinter.h>
#include <QtWidgets/qwidget.h>
#ifndef QT_QTPRINTSUPPORT_MODULE_H
#define QT_QTPRINTSUPPORT_MODULE_H
#define THROTTLELAB_QCP_SKIPPED_UMBRELLA
#endif
#include <qcustomplot.h>
#ifdef THROTTLELAB_QCP_SKIPPED_UMBRELLA
// A later #include <QtPrintSupport> must not find its guard defined by us.
#undef QT_QTPRINTSUPPORT_MODULE_H
#undef THROTTLELAB_QCP_SKIPPED_UMBRELLA
#endif
