// sweep/sweep_worker.hpp — one point of a sweep, priced: what `collsim sweep-worker` does for
// each line it reads (one worker per core, or one under each MPI rank of the relay). A point
// travels as one line of JSON (point_line) and its row comes back as one line (row_line), so
// a worker is any process that reads and writes lines: local or across nodes.
// Touches nothing but its streams; a point's failure is its row's error, never the worker's end.
#pragma once

#include <iosfwd>
#include <string>

#include "sweep/sweep_file.hpp"
#include "sweep/sweep_results.hpp"

namespace collsim {

// The point as the worker reads it.
std::string point_line(const SweepPoint& point);
// Prices the point of `line` (sim/prediction.hpp) and returns its row as a line: the time
// and bandwidths, or the error the config reader or the prediction gave. Keeps the last
// cluster it built, so a worker that gets a cluster's points in a row builds it once.
std::string price_point_line(const std::string& line);
// A worker's loop: a row line for every point line, flushed, until `in` ends.
void serve_points(std::istream& in, std::ostream& out);
// The row a worker's answer carries (throws Error on a line no worker wrote).
SweepRow row_from_line(const std::string& line);

}  // namespace collsim
