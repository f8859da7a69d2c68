// SPDX-License-Identifier: GPL-3.0-or-later
#include "flex_proportions.h"

#include <algorithm>

namespace throttlelab::engine {

FlexProportions::FlexProportions(std::size_t types) : m_numerators(types, 0) {}

void FlexProportions::resize(std::size_t types) {
  m_numerators.resize(types, 0);
}

void FlexProportions::age(SimTime now) const {
  const std::int64_t period = now.time_since_epoch() / kPeriod;
  const std::int64_t missed = period - m_period;
  if (missed <= 0) return;
  // Halve once per elapsed period; after 64 halvings everything is gone.
  const int shift = static_cast<int>(std::min<std::int64_t>(missed, 63));
  for (auto& n : m_numerators) n >>= shift;
  m_denominator >>= shift;
  m_period = period;
}

void FlexProportions::add(std::size_t type, std::int64_t events, SimTime now) {
  age(now);
  m_numerators.at(type) += events;
  m_denominator += events;
}

void FlexProportions::fraction(std::size_t type, SimTime now, std::int64_t& numerator,
                               std::int64_t& denominator) const {
  age(now);
  numerator = m_numerators.at(type);
  denominator = m_denominator;
  if (denominator <= 0) {
    numerator = 0;
    denominator = 1;
  }
  numerator = std::min(numerator, denominator);
}

}  // namespace throttlelab::engine
