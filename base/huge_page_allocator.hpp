// base/huge_page_allocator.hpp — the host buffers an MPI worker times (a rank's buffer and
// staging chunks, the calibration's sweep buffers) on transparent huge pages.
//
// Why: with a single-copy shared-memory transport (Open MPI's), the receiver's kernel copy
// pins the sender's pages one by one and walks their tables; on 4 KiB pages large messages
// are slower and their time depends on where each allocation's pages happen to lie, while on
// huge pages it pins 512x fewer (the measurements: validate/README.md, "Huge pages"). The calibration and the executed
// schedules allocate the same way, so the model is fitted to what the schedules then meet.
//
// Allocations larger than 4 KiB are rounded up to whole 2 MiB pages, aligned to them and
// marked MADV_HUGEPAGE (the kernel's "madvise" THP mode honours it; "always" needs no mark;
// "never" leaves 4 KiB pages, as does COLLSIM_HUGE_PAGES=0). Smaller ones are plain
// allocations. The rounding costs at most 2 MiB per buffer: a worker holds a handful.
// Touches: the process's heap and its THP advice; nothing else.
#pragma once

#include <cstddef>
#include <vector>

namespace collsim {

namespace huge_pages {
inline constexpr std::size_t kPageBytes = std::size_t(2) << 20;
// False where COLLSIM_HUGE_PAGES=0 (read once, at the first call).
bool enabled();
void* allocate(std::size_t bytes);
void deallocate(void* memory, std::size_t bytes) noexcept;
}  // namespace huge_pages

template <class T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor): allocator rebind
  T* allocate(std::size_t n) { return static_cast<T*>(huge_pages::allocate(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { huge_pages::deallocate(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const noexcept {
    return true;
  }
};

// A vector whose large storage lies on huge pages.
template <class T>
using HostVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace collsim
