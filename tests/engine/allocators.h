// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Shared by the engine tests that run memory out: a group of anonymous-memory allocators.
#include <string>

#include "throttlelab/engine/scenario.h"

namespace throttlelab::engine {

/// `count` allocators named `name`, each taking `anonMiB` of anonymous memory (no file) and
/// holding it for `holdS` seconds.
inline TaskSpec allocators(const std::string& name, int count, double anonMiB, double holdS) {
  TaskSpec t;
  t.name = name;
  t.count = count;
  t.kind = TaskKind::Allocator;
  t.anonMiB = anonMiB;
  t.holdS = holdS;
  t.fileMiB = 0;
  return t;
}

}  // namespace throttlelab::engine
