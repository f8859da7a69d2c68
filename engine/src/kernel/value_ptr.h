// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Two pointer members that let the Kernel keep the compiler's copy (a snapshot of a run is a
// copy of its Kernel): DeepPtr owns an object and copies it with its owner (a polymorphic
// one through its clone()), and DetachedPtr is a link to something outside the kernel (the
// output sink) that a copy does not inherit. Neither costs anything while nothing is copied:
// both are one pointer, dereferenced as before.
#include <memory>
#include <utility>

namespace throttlelab::engine {

/// Owns one T on the heap, like unique_ptr, and copies it with its owner: the copy points at
/// a copy of the object (T::clone() when T has one, so a derived type copies whole; else
/// T's copy constructor), never at the original.
template <class T>
class DeepPtr {
 public:
  DeepPtr() = default;
  DeepPtr(std::unique_ptr<T> p) noexcept : m_p(std::move(p)) {}  // NOLINT: converts like it
  DeepPtr(const DeepPtr& other) : m_p(copyOf(other.m_p.get())) {}
  DeepPtr& operator=(const DeepPtr& other) {
    if (this != &other) m_p = copyOf(other.m_p.get());
    return *this;
  }
  DeepPtr(DeepPtr&&) noexcept = default;
  DeepPtr& operator=(DeepPtr&&) noexcept = default;
  ~DeepPtr() = default;

  T* get() const noexcept { return m_p.get(); }
  T* operator->() const noexcept { return m_p.get(); }
  T& operator*() const noexcept { return *m_p; }
  explicit operator bool() const noexcept { return m_p != nullptr; }

 private:
  static std::unique_ptr<T> copyOf(const T* p) {
    if (!p) return nullptr;
    if constexpr (requires { p->clone(); })
      return p->clone();
    else
      return std::make_unique<T>(*p);
  }
  std::unique_ptr<T> m_p;
};

/// A pointer to an object the owner does not own (set by its user, who keeps it alive). A
/// copy of the owner starts detached (nullptr): it must not report into the original's sink;
/// whoever holds the copy attaches its own.
template <class T>
class DetachedPtr {
 public:
  DetachedPtr() = default;
  DetachedPtr(T* p) noexcept : m_p(p) {}  // NOLINT: assigned from a plain pointer
  DetachedPtr(const DetachedPtr&) noexcept {}
  DetachedPtr& operator=(const DetachedPtr& other) noexcept {
    if (this != &other) m_p = nullptr;
    return *this;
  }
  DetachedPtr& operator=(T* p) noexcept {
    m_p = p;
    return *this;
  }
  ~DetachedPtr() = default;

  T* get() const noexcept { return m_p; }
  T* operator->() const noexcept { return m_p; }
  explicit operator bool() const noexcept { return m_p != nullptr; }
  bool operator==(std::nullptr_t) const noexcept { return m_p == nullptr; }

 private:
  T* m_p = nullptr;
};

}  // namespace throttlelab::engine
