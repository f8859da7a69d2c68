// SPDX-License-Identifier: GPL-3.0-or-later
// Value rules, applied to every scenario whether it came from JSON or from the window: each
// key's range from its row of the key table, then the rules that involve more than one key.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "file_system.h"
#include "policy.h"
#include "scenario_parts.h"
#include "stall_timeline.h"

namespace throttlelab::engine::scenario_parts {

namespace {

using input::formatDouble;
using input::isUtf8;
using input::printable;
using schema::EnumInfo;
using schema::Key;
using schema::Range;

class Validator {
 public:
  Validator(const Context& context, bool deviceArrayForm)
      : m_context(context), m_deviceArrayForm(deviceArrayForm) {}

  void validate(const Scenario& s) const {
    if (s.schemaVersion != kScenarioSchemaVersion)
      m_context.fail("schemaVersion", "unsupported schema version " +
                                          std::to_string(s.schemaVersion) + " (this build reads " +
                                          std::to_string(kScenarioSchemaVersion) + ")");
    checkKeys(s, "", schema::kRootKeys);

    checkKeys(s.machine, "machine", schema::kMachineKeys);
    if (std::find(schema::kValidHz.begin(), schema::kValidHz.end(), s.machine.hz) ==
        schema::kValidHz.end())
      m_context.fail("machine.hz",
                     "must be one of 100, 250, 300, 1000, got " + std::to_string(s.machine.hz));
    if (std::find(schema::kAllocators.begin(), schema::kAllocators.end(), s.machine.allocator) ==
        schema::kAllocators.end())
      m_context.fail("machine.allocator", "unknown page-allocator generation '" +
                                              printable(s.machine.allocator) +
                                              "' (known: " + joinNames(schema::kAllocators) + ")");

    if (s.devices.empty()) m_context.fail("devices", "must list at least one device");
    if (s.devices.size() > engine::kMaxDevices)
      m_context.fail("devices", "lists " + std::to_string(s.devices.size()) + " devices; at most " +
                                    std::to_string(engine::kMaxDevices) + " are supported");
    for (std::size_t i = 0; i < s.devices.size(); ++i) validateDevice(s, i);
    if (!s.machine.swapDevice.empty())
      checkDeviceName(s, s.machine.swapDevice, "machine.swapDevice");

    checkKeys(s.vm, "vm", schema::kVmKeys);

    const std::vector<std::string> policies = policyNames();
    if (std::find(policies.begin(), policies.end(), s.policy) == policies.end())
      m_context.fail("policy", "unknown policy '" + printable(s.policy) +
                                   "' (known: " + joinNames(policies) + ")");

    if (s.tasks.size() > schema::kMaxTaskGroups)
      m_context.fail("tasks", "lists " + std::to_string(s.tasks.size()) + " task groups; at most " +
                                  std::to_string(schema::kMaxTaskGroups) + " are supported");
    if (s.cgroups.size() > schema::kMaxCgroups)
      m_context.fail("cgroups", "lists " + std::to_string(s.cgroups.size()) + " cgroups; at most " +
                                    std::to_string(schema::kMaxCgroups) + " are supported");
    for (std::size_t i = 0; i < s.cgroups.size(); ++i) validateCgroup(s, i);
    std::int64_t total = 0;
    for (std::size_t i = 0; i < s.tasks.size(); ++i) {
      validateTask(s, i);
      total += s.tasks[i].count;
    }
    if (total > schema::kMaxTotalTasks)
      m_context.fail("tasks", "the task counts add up to " + std::to_string(total) +
                                  ", more than the " + std::to_string(schema::kMaxTotalTasks) +
                                  " supported");
  }

 private:
  void validateDevice(const Scenario& s, std::size_t i) const {
    const DeviceConfig& d = s.devices[i];
    const std::string path = deviceJsonPath(i, m_deviceArrayForm || s.devices.size() > 1);
    checkKeys(d, path, schema::kDeviceKeys);
    if (d.name.find_first_of(" \t") != std::string::npos)
      m_context.fail(path + ".name", "must not contain spaces, got \"" + printable(d.name) + "\"");
    for (std::size_t j = 0; j < i; ++j)
      if (s.devices[j].name == d.name)
        m_context.fail(path + ".name", "device name \"" + printable(d.name) + "\" is used twice");
    if (!fsKindFromString(d.fileSystem))
      m_context.fail(path + ".fileSystem", "unknown file system '" + printable(d.fileSystem) +
                                               "' (known: none, ext3, ext4, xfs)");
    std::string mountError, stallError;
    if (!parseMountOptions(d.mountOptions, &mountError))
      m_context.fail(path + ".mountOptions", printable(mountError, 200));
    if (std::vector<Stall> stalls; !parseStalls(d.stalls, d.stallPeriodS, &stalls, &stallError))
      m_context.fail(path + ".stalls", printable(stallError, 200));
    if (!knownElevator(d.elevator))
      m_context.fail(path + ".elevator",
                     "unknown elevator '" + printable(d.elevator) + "' (known: fifo, deadline)");
    if (d.minRatio > d.maxRatio)
      m_context.fail(path + ".minRatio", "must not exceed maxRatio (" + std::to_string(d.maxRatio) +
                                             "), got " + std::to_string(d.minRatio));
  }

  void validateCgroup(const Scenario& s, std::size_t i) const {
    const CgroupSpec& c = s.cgroups[i];
    const std::string path = cgroupJsonPath(i);
    checkKeys(c, path, schema::kCgroupKeys);
    for (const char ch : c.name) {
      const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                      (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' || ch == '.';
      if (!ok)
        m_context.fail(path + ".name", "may hold only letters, digits, '_', '-' and '.', got \"" +
                                           printable(c.name) + "\"");
    }
    for (std::size_t j = 0; j < i; ++j)
      if (s.cgroups[j].name == c.name)
        m_context.fail(path + ".name", "cgroup name \"" + printable(c.name) + "\" is used twice");
  }

  void validateTask(const Scenario& s, std::size_t i) const {
    const TaskSpec& t = s.tasks[i];
    const std::string path = taskJsonPath(i);
    checkKeys(t, path, schema::kTaskKeys);
    if (!t.cgroup.empty() && std::none_of(s.cgroups.begin(), s.cgroups.end(),
                                          [&](const CgroupSpec& c) { return c.name == t.cgroup; }))
      m_context.fail(path + ".cgroup",
                     "no cgroup named \"" + printable(t.cgroup) + "\" in `cgroups`");
    // A compiler may write no object file (0); an allocator writes nothing at all.
    if (t.kind == TaskKind::Writer && t.fileMiB < 1)
      m_context.fail(path + ".fileMiB",
                     rangeReason(1, schema::kMaxFileMiB, std::to_string(t.fileMiB)));
    if (t.sched == SchedClass::Other && t.rtPriority != 0)
      m_context.fail(path + ".rtPriority",
                     "must be 0 for sched \"other\" (only fifo and rr "
                     "tasks have a real-time priority), got " +
                         std::to_string(t.rtPriority));
    if (t.sched != SchedClass::Other && (t.rtPriority < 1 || t.rtPriority > 99))
      m_context.fail(path + ".rtPriority", "must be between 1 and 99 for sched \"" +
                                               std::string(toString(t.sched)) + "\", got " +
                                               std::to_string(t.rtPriority));
    if (!t.device.empty()) checkDeviceName(s, t.device, path + ".device");
    if (t.kind == TaskKind::Compiler && !(t.cpuS > 0) && !(t.anonMiB > 0))
      m_context.fail(path + ".cpuS",
                     "a compiler needs cpuS > 0 or anonMiB > 0 (it would do nothing), got cpuS " +
                         formatDouble(t.cpuS) + " and anonMiB " + formatDouble(t.anonMiB));
    if (t.kind == TaskKind::Allocator && !(t.anonMiB > 0))
      m_context.fail(path + ".anonMiB",
                     "an allocator needs anonMiB > 0 (the memory it "
                     "allocates), got " +
                         formatDouble(t.anonMiB));
  }

  // Every scalar key of `keys` against its row. The path is built only for a message.
  template <class T, std::size_t N>
  void checkKeys(const T& obj, const std::string& prefix, const Key<T> (&keys)[N]) const {
    for (const Key<T>& k : keys) {
      const std::string reason = std::visit(
          [&](auto m) -> std::string {
            if constexpr (std::is_same_v<decltype(m), std::monostate>)
              return {};
            else
              return check(obj.*m, k);
          },
          k.member);
      if (!reason.empty()) m_context.fail(keyPath(prefix, k.name), reason);
    }
  }

  template <class T, class Int>
  requires std::is_integral_v<Int> && std::is_signed_v<Int>
  static std::string check(Int v, const Key<T>& k) {
    const auto lo = static_cast<std::int64_t>(k.range.lo);
    const auto hi = static_cast<std::int64_t>(k.range.hi);
    if ((v == 0 && !k.zeroOr.empty()) || (v >= lo && v <= hi)) return {};
    return "must be " + std::string(k.zeroOr) + "between " + std::to_string(lo) + " and " +
           std::to_string(hi) + ", got " + std::to_string(v);
  }

  // Written as !(in range) so that NaN, which compares false, is rejected too.
  template <class T>
  static std::string check(double v, const Key<T>& k) {
    const Range& r = k.range;
    if ((v == 0 && !k.zeroOr.empty()) || ((r.loOpen ? v > r.lo : v >= r.lo) && v <= r.hi))
      return {};
    if (r.loOpen)
      return "must be greater than " + formatDouble(r.lo) + " and at most " + formatDouble(r.hi) +
             ", got " + formatDouble(v);
    return "must be " + std::string(k.zeroOr) + "between " + formatDouble(r.lo) + " and " +
           formatDouble(r.hi) + ", got " + formatDouble(v);
  }

  template <class T>
  static std::string check(const std::string& name, const Key<T>& k) {
    return k.range.hi > 0 ? nameProblem(name, static_cast<std::size_t>(k.range.hi)) : std::string();
  }

  template <class T, class E>
  requires std::is_enum_v<E>
  static std::string check(E e, const Key<T>&) {
    const auto& all = EnumInfo<E>::kAll;
    return std::find(all.begin(), all.end(), e) == all.end()
               ? "unknown " + std::string(EnumInfo<E>::kWhat)
               : std::string();
  }

  template <class T>
  static std::string check(bool, const Key<T>&) {
    return {};
  }
  template <class T>
  static std::string check(std::uint64_t, const Key<T>&) {
    return {};
  }

  static std::string nameProblem(const std::string& name, std::size_t maxLength) {
    if (name.empty()) return "must not be empty";
    if (name.size() > maxLength)
      return "is " + std::to_string(name.size()) + " characters long; at most " +
             std::to_string(maxLength) + " are allowed";
    // Names end up in CSV provenance lines, trace lines and window titles.
    if (std::any_of(name.begin(), name.end(), [](char c) {
          const auto u = static_cast<unsigned char>(c);
          return u < 0x20 || u == 0x7f;
        }))
      return "must not contain control characters, got \"" + printable(name) + "\"";
    if (!isUtf8(name)) return "must be UTF-8 text, got \"" + printable(name) + "\"";
    return {};
  }

  void checkDeviceName(const Scenario& s, const std::string& name, const std::string& path) const {
    if (std::any_of(s.devices.begin(), s.devices.end(),
                    [&](const DeviceConfig& d) { return d.name == name; }))
      return;
    std::vector<std::string> names;
    for (const auto& d : s.devices) names.push_back(printable(d.name));
    m_context.fail(
        path, "no device named \"" + printable(name) + "\" (devices: " + joinNames(names) + ")");
  }

  const Context& m_context;
  bool m_deviceArrayForm;
};
}  // namespace

void validate(const Scenario& s, const Context& context, bool deviceArrayForm) {
  Validator(context, deviceArrayForm).validate(s);
}

}  // namespace throttlelab::engine::scenario_parts
