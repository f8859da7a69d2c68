// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Whether this test runs under AddressSanitizer (the asan preset: a Debug build, some 30 times
// slower). The long suites run there to find memory errors, not for coverage, and shorten
// their cases.
namespace throttlelab::engine {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

}  // namespace throttlelab::engine
