// tests/execute/test_device_stream.cpp — the emulated device stream the mpi+cuda tests run
// on must behave like a GPU stream, or those tests prove nothing: work runs later than it is
// asked for, in order, a marker is reached only once everything before it has run, and
// fresh memory holds NaN (so a read of unwritten data fails verification).
#include <catch2/catch.hpp>

#include <cmath>

#include "execute/device/device_stream.hpp"

using namespace collsim;

TEST_CASE("emulated device stream defers work and orders it like a GPU stream", "[validate][device]") {
  EmulatedDeviceStream stream(/*mpi_accessible=*/false);
  float* device = stream.allocate(4);
  float* host = stream.allocate_host(4);
  CHECK(std::isnan(device[0]));
  const float inputs[4] = {1, 2, 3, 4};
  stream.to_device(device, inputs, 4);
  stream.reduce(device, inputs, 4);  // device = 2 * inputs
  stream.to_host(host, device, 4);
  const DeviceStream::Marker after_copy_back = stream.mark();
  CHECK(std::isnan(host[3]));  // nothing has run yet: asking is not doing
  int polls = 0;
  while (!stream.reached(after_copy_back)) ++polls;
  CHECK(polls >= 3);  // the stream lags behind the host
  CHECK(host[0] == 2.0f);
  CHECK(host[3] == 8.0f);
  stream.add_one(device + 1);
  stream.copy(device, device + 1, 1);
  stream.synchronize();
  CHECK(device[0] == 5.0f);
  CHECK(stream.reached(stream.mark()));
  CHECK_FALSE(stream.mpi_can_access());
  CHECK(EmulatedDeviceStream(true).mpi_can_access());
}
