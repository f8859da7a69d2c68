// SPDX-License-Identifier: GPL-3.0-or-later
#include "policies/policy.h"

namespace throttlelab::engine {

namespace {
struct Entry {
  std::string_view name;
  std::unique_ptr<ThrottlePolicy> (*make)();
};
// The registry: adding a policy is one file plus one line here.
constexpr Entry kPolicies[] = {
    {"ioless", &makeIolessPolicy},
};
}  // namespace

std::vector<std::string> policyNames() {
  std::vector<std::string> names;
  for (const auto& e : kPolicies) names.emplace_back(e.name);
  return names;
}

std::unique_ptr<ThrottlePolicy> makePolicy(std::string_view name) {
  for (const auto& e : kPolicies)
    if (e.name == name) return e.make();
  return nullptr;
}

}  // namespace throttlelab::engine
