// execute/device/device_stream.cpp — the emulated device stream (see the header).
#include "execute/device/device_stream.hpp"

#include <algorithm>
#include <limits>

namespace collsim {

float* EmulatedDeviceStream::allocate(std::uint64_t elements) {
  // NaN-filled: a chunk read before it was written shows up in verification.
  return blocks_.emplace_back(std::max<std::uint64_t>(elements, 1), std::numeric_limits<float>::quiet_NaN()).data();
}

void EmulatedDeviceStream::copy(float* dst, const float* src, std::uint64_t count) {
  enqueue([=] { std::copy_n(src, count, dst); });
}

void EmulatedDeviceStream::reduce(float* dst, const float* src, std::uint64_t count) {
  enqueue([=] { reduce_sum(dst, src, count); });
}

void EmulatedDeviceStream::add_one(float* at) {
  enqueue([=] { *at += 1.0f; });
}

void EmulatedDeviceStream::enqueue(std::function<void()> operation) {
  pending_.push_back(std::move(operation));
  ++enqueued_;
}

void EmulatedDeviceStream::run_one() {
  pending_.front()();
  pending_.pop_front();
  ++ran_;
}

bool EmulatedDeviceStream::reached(Marker marker) {
  // Every third poll runs one operation: the stream lags behind the host, as a GPU's does.
  if (++polls_ % 3 == 0 && !pending_.empty()) run_one();
  return ran_ >= marker;
}

void EmulatedDeviceStream::synchronize() {
  while (!pending_.empty()) run_one();
}

}  // namespace collsim
