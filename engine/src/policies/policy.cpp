// SPDX-License-Identifier: GPL-3.0-or-later
#include "policy.h"

#include "throttle_host.h"

namespace throttlelab::engine {

namespace {
using Factory = std::unique_ptr<ThrottlePolicy> (*)();
// The registry: adding a policy is one file plus one line here.
constexpr Factory kPolicies[] = {
    &makeIolessPolicy,        &makeIoless32Policy,       &makePerBdiPolicy,
    &makeLegacyPolicy,        &makeLegacyRtExemptPolicy, &makeLegacyRtBreakPolicy,
    &makeLegacyRtBonusPolicy, &makeNoThrottlePolicy,
};
}  // namespace

std::vector<PolicyInfo> policyInfos() {
  std::vector<PolicyInfo> out;
  for (auto make : kPolicies) {
    const auto p = make();
    out.push_back({std::string(p->name()), std::string(p->description()), std::string(p->kernels()),
                   std::string(p->details())});
  }
  return out;
}

std::vector<std::string> policyNames() {
  std::vector<std::string> names;
  for (const auto& i : policyInfos()) names.push_back(i.name);
  return names;
}

void kickBackgroundWriteback(ThrottleHost& host, int dev, const GlobalView& g) {
  if (!host.writebackInProgress(dev) && g.nrReclaimable > g.bgThresh)
    host.startBackgroundWriteback(dev);
}

std::unique_ptr<ThrottlePolicy> makePolicy(std::string_view name) {
  for (auto make : kPolicies) {
    auto p = make();
    if (p->name() == name) return p;
  }
  return nullptr;
}

}  // namespace throttlelab::engine
