// tests/base/test_huge_page_allocator.cpp — the workers' timed buffers on huge pages:
// blocks beyond one 4 KiB page start on a 2 MiB boundary and hold what is written to them;
// small ones are plain allocations; vectors of them copy and free as any vector.
#include <catch2/catch.hpp>

#include <cstdint>
#include <numeric>
#include <vector>

#include "base/huge_page_allocator.hpp"

using namespace collsim;

namespace {
std::uintptr_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

// With COLLSIM_HUGE_PAGES=0 every block is a plain allocation: only the contents are checked.
bool on_huge_page_boundary(const void* p) {
  if (!huge_pages::enabled()) {
    WARN("COLLSIM_HUGE_PAGES=0: alignment not checked");
    return true;
  }
  return address(p) % huge_pages::kPageBytes == 0;
}
}  // namespace

TEST_CASE("a block larger than a small page starts on a huge-page boundary and keeps its bytes") {
  for (std::size_t bytes : {std::size_t(4097), std::size_t(1) << 20, (std::size_t(5) << 20) + 12}) {
    void* block = huge_pages::allocate(bytes);
    REQUIRE(on_huge_page_boundary(block));
    auto* data = static_cast<unsigned char*>(block);
    for (std::size_t i = 0; i < bytes; ++i) data[i] = static_cast<unsigned char>(i * 7);
    bool intact = true;
    for (std::size_t i = 0; i < bytes; ++i) intact = intact && data[i] == static_cast<unsigned char>(i * 7);
    CHECK(intact);
    huge_pages::deallocate(block, bytes);
  }
}

TEST_CASE("a block of one small page or less is a plain allocation") {
  // Two plain 64-byte blocks sit well inside one huge page's distance of each other, and
  // at most one of a handful can fall on a 2 MiB boundary by chance.
  int on_boundary = 0;
  std::vector<void*> blocks;
  for (int i = 0; i < 8; ++i) {
    blocks.push_back(huge_pages::allocate(64));
    on_boundary += address(blocks.back()) % huge_pages::kPageBytes == 0;
  }
  CHECK(on_boundary <= 1);
  for (void* block : blocks) huge_pages::deallocate(block, 64);
}

TEST_CASE("a HostVector copies and sums as a std::vector does") {
  HostVector<float> a(1 << 20);
  std::iota(a.begin(), a.end(), 0.0f);
  REQUIRE(on_huge_page_boundary(a.data()));
  HostVector<float> b = a;
  REQUIRE(b.size() == a.size());
  CHECK(b[12345] == 12345.0f);
  CHECK(address(b.data()) != address(a.data()));
  b.resize(16);  // shrinking keeps the block; growing past it moves to a new one
  b.resize(3 << 20);
  CHECK(b[15] == 15.0f);
  CHECK(on_huge_page_boundary(b.data()));
}
