// SPDX-License-Identifier: GPL-3.0-or-later
// Placeholder while issue #6 is in progress; replaced by the implementation.
#include "throttlelab/traceio/trace_stats.h"
