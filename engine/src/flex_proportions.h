// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Floating proportions (docs/model.md, Eq. 12; lib/flex_proportions.c of 3.5+): each device's share
// of recent writeout completions, aged by halving every 3 s.
#include <cstdint>
#include <vector>

#include "throttlelab/engine/sim_time.h"

namespace throttlelab::engine {

class FlexProportions {
 public:
  explicit FlexProportions(std::size_t types = 1);
  void resize(std::size_t types);
  /// One completion event of `type` at `now` (ages lazily first).
  void add(std::size_t type, std::int64_t events, SimTime now);
  /// Numerator/denominator of the share of `type`; 0/1 before any event.
  void fraction(std::size_t type, SimTime now, std::int64_t& numerator,
                std::int64_t& denominator) const;

  static constexpr SimDuration kPeriod = std::chrono::seconds(3);  ///< VM_COMPLETIONS_PERIOD_LEN

 private:
  void age(SimTime now) const;
  mutable std::vector<std::int64_t> m_numerators;
  mutable std::int64_t m_denominator = 0;
  mutable std::int64_t m_period = 0;  ///< index of the current 3 s period
};

}  // namespace throttlelab::engine
