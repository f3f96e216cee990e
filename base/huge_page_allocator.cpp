// base/huge_page_allocator.cpp — large blocks aligned to 2 MiB and advised onto huge
// pages (see the header).
#include "base/huge_page_allocator.hpp"

#include <sys/mman.h>

#include <cstdlib>
#include <new>
#include <string_view>

namespace collsim::huge_pages {
namespace {

constexpr std::size_t kSmallPageBytes = 4096;


// Larger than one 4 KiB page: a 1 MiB buffer, rounded up to a whole huge page, still costs
// the copy one page to pin instead of 256, as the calibration's (large) buffers do.
bool is_large(std::size_t bytes) { return bytes > kSmallPageBytes && enabled(); }

std::size_t rounded_up(std::size_t bytes) { return (bytes + kPageBytes - 1) / kPageBytes * kPageBytes; }

}  // namespace

bool enabled() {
  static const bool on = [] {
    const char* setting = std::getenv("COLLSIM_HUGE_PAGES");
    return !setting || std::string_view(setting) != "0";
  }();
  return on;
}

void* allocate(std::size_t bytes) {
  if (!is_large(bytes)) return ::operator new(bytes);
  void* memory = std::aligned_alloc(kPageBytes, rounded_up(bytes));
  if (!memory) throw std::bad_alloc();
  // Advice only: where the kernel has no THP, the block stays on 4 KiB pages.
  madvise(memory, rounded_up(bytes), MADV_HUGEPAGE);
  return memory;
}

void deallocate(void* memory, std::size_t bytes) noexcept {
  if (is_large(bytes)) {
    std::free(memory);
  } else {
    ::operator delete(memory);
  }
}

}  // namespace collsim::huge_pages
