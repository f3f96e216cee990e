// validate/nccl_tests_log.hpp — the text format of NVIDIA's nccl-tests (all_reduce_perf,
// all_gather_perf, reduce_scatter_perf, broadcast_perf, reduce_perf), read and written here
// in one place so that what collsim writes, it reads back to the same numbers.
//
// What a log holds (nccl-tests src/util.cu and src/common.cu; per collective src/<coll>.cu):
//  * header lines starting with '#': "# nccl-tests version ...", "# Collective test starting:
//    all_reduce_perf", "# nThread 1 nGpus 1 minBytes ...", one GPU line per rank
//    ("#  Rank  0 Group  0 Pid 123 on host device  0 [0000:04:00] NVIDIA H100 80GB HBM3"),
//    and two column-title lines (size count type redop root, then time algbw busbw #wrong
//    out of place and in place; "(B) (elements) ... (us) (GB/s) (GB/s)");
//  * one data line per size; time in microseconds (the mean over iterations), algbw = size /
//    time in GB/s (1e9 bytes/s), busbw = algbw x 2(P-1)/P (allreduce), (P-1)/P (allgather,
//    reduce-scatter) or 1 (broadcast, reduce); #wrong is N/A where the run did not check;
//  * "# Out of bounds values : 0 OK" and "# Avg bus bandwidth    : 123.456".
// `size` is the largest buffer: for allgather the whole output, for reduce-scatter the whole
// input (count elements per rank x P ranks); for the others count x the type's bytes. That is
// collsim's N (the buffer every rank holds, docs/algorithms.md) for all five collectives.
// Lines that are neither (NCCL's own "NCCL version 2.x" and "NCCL INFO" lines, MPI messages)
// are skipped. Not read: logs run in place only (-O 0), per-iteration (-P) or timestamp (-T)
// columns. Errors are one line "FILE:LINE: what is wrong". Pure, but for the file read.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/schedule.hpp"

namespace collsim {

// One half of a data line (out of place or in place).
struct NcclTestsTiming {
  double time_us = 0;
  double algbw_GBps = 0;
  double busbw_GBps = 0;
  std::optional<double> wrong;  // the #wrong column; none where it says N/A (not checked)
};

struct NcclTestsRow {
  std::size_t line = 0;  // in the file, from 1
  std::uint64_t size_bytes = 0;
  std::uint64_t count = 0;
  std::string type = "float", redop = "sum";
  int root = -1;
  NcclTestsTiming out_of_place, in_place;
  // The time compared with a prediction: out of place, nccl-tests' first column.
  double measured_s() const { return 1e-6 * out_of_place.time_us; }
};

// A GPU line of the header: which rank ran where.
struct NcclTestsRank {
  Rank rank = 0;
  std::string host;
  std::string device;  // "NVIDIA H100 80GB HBM3"
  std::uint32_t local_device = 0;  // the CUDA device index on its host
};

struct NcclTestsLog {
  Collective collective = Collective::allreduce;
  std::string program;        // "all_reduce_perf"; empty where the log does not say
  std::string nccl_version;   // "2.26.6+cuda12.8", or the nccl-tests version line; empty when absent
  std::vector<NcclTestsRank> ranks;  // by rank
  std::vector<NcclTestsRow> rows;
  std::optional<double> avg_busbw_GBps;
  // GPUs each thread drove ("# nThread 1 nGpus 8": all_reduce_perf -g 8); 1 where the log does not
  // say. One thread launching for several GPUs starts the last one's kernel later
  // (PredictionRequest::gpus_per_thread).
  std::uint32_t gpus_per_thread = 1;
  std::vector<std::string> comments;  // writer only: '#' lines after the first (what wrote it)

  Rank rank_count() const { return Rank(ranks.size()); }
  std::size_t host_count() const;
};

// nccl-tests' program for a collective ("all_reduce_perf").
std::string_view nccl_tests_program(Collective collective);
// Bytes per element of an nccl-tests type name (float 4, half 2, double 8, int8 1, ...);
// throws Error naming the known types.
std::uint32_t nccl_tests_type_bytes(std::string_view type);

// Throws Error "ORIGIN:LINE: ..." for an empty or binary file, a log of another tool, a data
// line that is cut short, has the wrong number of columns or a non-number, an unknown
// collective, no data lines, or sizes that are not whole elements.
NcclTestsLog parse_nccl_tests_log(std::string_view text, const std::string& origin);
NcclTestsLog load_nccl_tests_log(const std::filesystem::path& path);

// A data line for collsim's N bytes per rank taking `seconds`: float elements, sum where the
// collective reduces, root 0 where it has one, the same time out of place and in place, #wrong
// N/A. Throws Error when N is not whole floats (for allgather and reduce-scatter: per rank).
NcclTestsRow nccl_tests_row(Collective collective, Rank ranks, std::uint64_t bytes, double seconds);

// The log as nccl-tests prints it (column widths and number format included), so that a
// prediction can be diffed with a measured log line by line.
std::string nccl_tests_log_text(const NcclTestsLog& log);

// A number in nccl-tests' fixed width: two decimals while they fit, then one, then none,
// then an exponent (nccl-tests src/util.cu, getFloatStr).
std::string nccl_tests_number(double value, int width);

}  // namespace collsim
