// tests/validate/test_nccl_tests_log.cpp — nccl-tests logs: what collsim writes (from its own
// predictions, never invented numbers) it reads back to the printed precision, for every
// collective; noise lines are skipped; malformed logs fail with their line number; and the
// link-class fit recovers an efficiency from a log predicted with it.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "base/error.hpp"
#include "sim/prediction.hpp"
#include "topologies/cluster_config.hpp"
#include "validate/measured_fit.hpp"
#include "validate/nccl_tests_log.hpp"

using namespace collsim;

namespace {

// collsim's own prediction of `collective` on the dgx-h100 preset, as an nccl-tests log.
NcclTestsLog predicted_log(Collective collective, const std::vector<std::uint64_t>& sizes, Rank ranks = 8) {
  const ClusterConfig cluster = cluster_with_ranks(load_preset("dgx-h100"), ranks);
  PredictionRequest r;
  r.collective = collective;
  r.algorithms = {"auto"};
  r.sizes = sizes;
  r.ranks = cluster.ranks;
  r.cost = cluster.cost;
  r.topology = cluster.topology;
  r.engine = EngineKind::flow;
  NcclTestsLog log;
  log.collective = collective;
  for (const PredictionRecord& rec : predict(r)) log.rows.push_back(nccl_tests_row(collective, ranks, rec.bytes, rec.time_s));
  for (Rank k = 0; k < ranks; ++k) log.ranks.push_back({k, "node0", "collsim prediction", k});
  return log;
}

std::string error_of(const std::string& text) {
  try {
    parse_nccl_tests_log(text, "t.log");
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// A log collsim wrote: allreduce (or `c`) on dgx-h100 at 4K, 1M and 64M.
std::string written(Collective c = Collective::allreduce) {
  return nccl_tests_log_text(predicted_log(c, {4096, 1 << 20, 64 << 20}));
}

// The first line that starts with `starts_with`, replaced by `by`.
std::string replace_line(std::string text, const std::string& starts_with, const std::string& by) {
  std::size_t at = 0;
  if (text.rfind(starts_with, 0) != 0) {
    at = text.find("\n" + starts_with);
    REQUIRE(at != std::string::npos);
    ++at;
  }
  const std::size_t end = text.find('\n', at);
  return text.replace(at, end - at, by);
}

}  // namespace

TEST_CASE("a log collsim writes reads back to the same numbers, for every collective") {
  for (Collective c : all_collectives()) {
    CAPTURE(to_string(c));
    const NcclTestsLog log = predicted_log(c, {8 * 4 * 8, 64 << 10, 1 << 20, 16 << 20, 256 << 20});
    const NcclTestsLog back = parse_nccl_tests_log(nccl_tests_log_text(log), "written");
    CHECK(back.collective == c);
    CHECK(back.program == nccl_tests_program(c));
    CHECK(back.rank_count() == 8);
    CHECK(back.host_count() == 1);
    REQUIRE(back.rows.size() == log.rows.size());
    for (std::size_t i = 0; i < log.rows.size(); ++i) {
      const NcclTestsRow &a = log.rows[i], &b = back.rows[i];
      CHECK(b.size_bytes == a.size_bytes);
      CHECK(b.count == a.count);
      CHECK(b.root == a.root);
      CHECK(b.redop == a.redop);
      // Two decimals of a microsecond below 10 ms, then one, then none: 5e-5 relative at worst.
      CHECK(b.measured_s() == Approx(a.measured_s()).epsilon(5e-5).margin(5e-9));
      CHECK(b.in_place.busbw_GBps == Approx(a.in_place.busbw_GBps).margin(0.005).epsilon(5e-5));
      CHECK(!b.in_place.wrong);  // N/A: nothing was checked
    }
    CHECK(back.avg_busbw_GBps.has_value());
  }
}

TEST_CASE("allgather and reduce-scatter print the whole buffer as size and one rank's floats as count") {
  const NcclTestsRow ag = nccl_tests_row(Collective::allgather, 8, 1 << 20, 1e-3);
  CHECK(ag.size_bytes == 1u << 20);
  CHECK(ag.count == (1u << 20) / 4 / 8);
  CHECK(ag.redop == "none");
  CHECK(ag.root == -1);
  CHECK(ag.in_place.busbw_GBps == Approx(ag.in_place.algbw_GBps * 7 / 8));
  const NcclTestsRow ar = nccl_tests_row(Collective::allreduce, 8, 1 << 20, 1e-3);
  CHECK(ar.count == (1u << 20) / 4);
  CHECK(ar.in_place.busbw_GBps == Approx(ar.in_place.algbw_GBps * 14 / 8));
  CHECK(nccl_tests_row(Collective::broadcast, 8, 1 << 20, 1e-3).root == 0);
  CHECK_THROWS_WITH(nccl_tests_row(Collective::reduce_scatter, 8, 1000, 1e-3), Catch::Contains("multiple of 32"));
  CHECK_THROWS_WITH(nccl_tests_row(Collective::allreduce, 8, 1002, 1e-3), Catch::Contains("multiple of 4"));
}

TEST_CASE("alltoall prints as alltoall_perf: whole size and count, no redop or root, busbw (P-1)/P") {
  const NcclTestsRow a2a = nccl_tests_row(Collective::alltoall, 8, 1 << 20, 1e-3);
  CHECK(nccl_tests_program(Collective::alltoall) == "alltoall_perf");
  CHECK(a2a.size_bytes == 1u << 20);
  CHECK(a2a.count == (1u << 20) / 4);
  CHECK(a2a.redop == "none");
  CHECK(a2a.root == -1);
  CHECK(a2a.in_place.busbw_GBps == Approx(a2a.in_place.algbw_GBps * 7 / 8));
  // nccl-tests rounds its count down to a multiple of P: sizes are whole blocks of floats.
  CHECK_THROWS_WITH(nccl_tests_row(Collective::alltoall, 8, 1000, 1e-3), Catch::Contains("multiple of 32"));
}

TEST_CASE("numbers are printed in nccl-tests' fixed widths") {
  CHECK(nccl_tests_number(12.0, 7) == "  12.00");
  CHECK(nccl_tests_number(9999.5, 7) == "9999.50");
  CHECK(nccl_tests_number(12345.6, 7) == "12345.6");
  CHECK(nccl_tests_number(1234567.4, 7) == "1234567");
  CHECK(nccl_tests_number(123456789.0, 7) == "1.2e+08");
  CHECK(nccl_tests_number(0.0, 6) == "  0.00");
  CHECK(nccl_tests_number(379.76, 6) == "379.76");
  CHECK(nccl_tests_number(1234.5, 6) == "1234.5");
}

TEST_CASE("NCCL's own lines, MPI messages and a missing program line do not stop the reader") {
  const std::string clean_text = written(Collective::reduce_scatter);
  std::string text = clean_text;
  const NcclTestsLog clean = parse_nccl_tests_log(text, "clean");
  text = replace_line(text, "# Collective test starting", "NCCL version 2.26.6+cuda12.8");
  text = replace_line(text, "# Collective test concluded", "host:123:456 [0] NCCL INFO comm 0x1 rank 0 nranks 8 - Destroy COMPLETE");
  const std::size_t first_data = text.find("\n        4096");
  REQUIRE(first_data != std::string::npos);
  text.insert(first_data + 1, "[host:02943] 15 more processes have sent help message help-mca-var.txt\n\n");
  const NcclTestsLog noisy = parse_nccl_tests_log(text, "noisy");
  const std::string versions = "# nccl-tests version 2.17.6 nccl-headers=22803 nccl-library=22803\n";
  CHECK(parse_nccl_tests_log(versions + clean_text, "v").nccl_version == "nccl-tests version 2.17.6 nccl-headers=22803 nccl-library=22803");
  CHECK(parse_nccl_tests_log(versions + "# NCCL version 2.28.3+cuda12.9\n" + clean_text, "v").nccl_version == "2.28.3+cuda12.9");
  CHECK(noisy.program.empty());
  CHECK(noisy.collective == Collective::reduce_scatter);  // from size = count x 4 x P and redop sum
  CHECK(noisy.nccl_version == "2.26.6+cuda12.8");
  REQUIRE(noisy.rows.size() == clean.rows.size());
  CHECK(noisy.rows.back().measured_s() == clean.rows.back().measured_s());
}

TEST_CASE("the header's nGpus is how many GPUs each thread drove (all_reduce_perf -g), 1 where it is absent") {
  const std::string text = written();
  CHECK(parse_nccl_tests_log(text, "plain").gpus_per_thread == 1);
  const std::string header = "# nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 40\n";
  CHECK(parse_nccl_tests_log(header + text, "g8").gpus_per_thread == 8);
  CHECK_THAT(error_of("# nThread 1 nGpus eight minBytes 8\n" + text), Catch::Contains("nGpus"));

  // validate --measured predicts the log as it ran: 7 more kernel launch calls on dgx-h100 (runtime nccl)
  const ClusterConfig dgx = load_preset("dgx-h100");
  const NcclTestsLog one = parse_nccl_tests_log(text, "plain");
  const NcclTestsLog eight = parse_nccl_tests_log(header + text, "g8");
  const std::vector<PredictionRecord> a = predict_log_sizes(dgx, one, {"ring"});
  const std::vector<PredictionRecord> b = predict_log_sizes(dgx, eight, {"ring"});
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(b[i].time_s - a[i].time_s == Approx(7 * 3.72e-6).epsilon(1e-6));
}

TEST_CASE("on one rank the in-place column may print any bandwidth (NCCL does nothing there), elsewhere it is bounded") {
  // reduce_perf on one GPU, as an RTX 2080 Ti printed it (the public AutoDL page): out of place a
  // copy, in place 0.19 us whatever the size, 5.7 million GB/s at 1 GiB.
  const std::string header = "# nThread 1 nGpus 1 minBytes 8 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 20\n"
                             "#  Rank  0 Group  0 Pid  31816 on host device  0 [0000:b4:00] NVIDIA GeForce RTX 2080 Ti\n";
  const std::string rank1 = "#  Rank  1 Group  0 Pid  31816 on host device  1 [0000:b5:00] NVIDIA GeForce RTX 2080 Ti\n";
  const std::string titles =
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
      "#wrong\n";
  const std::string line =
      "  1073741824     268435456     float     sum       0   4016.0  267.37  267.37      0     0.19   5706839.35  "
      "5706839.35  0\n";
  const NcclTestsLog one = parse_nccl_tests_log(header + titles + line, "one.log");
  REQUIRE(one.rows.size() == 1);
  CHECK(one.collective == Collective::reduce);
  CHECK(one.rows[0].out_of_place.time_us == 4016.0);
  CHECK(one.rows[0].in_place.algbw_GBps == Approx(5706839.35));
  // the same line on two ranks is refused: there a rate beyond a petabyte a second is corrupt
  CHECK_THAT(error_of(header + rank1 + titles + line), Catch::Contains("more than a petabyte"));
  // and on one rank the out-of-place column keeps its bound
  CHECK_THAT(error_of(header + titles +
                      "  1073741824     268435456     float     sum       0   0.19   5706839.35  5706839.35  0     "
                      "4016.0  267.37  267.37      0\n"),
             Catch::Contains("more than a petabyte"));
}

TEST_CASE("where no line names the program, the columns tell the collective") {
  for (Collective c : all_collectives()) {
    CAPTURE(to_string(c));
    std::string text = written(c);
    text = replace_line(text, "# Collective test starting", "#");
    text = replace_line(text, "# Collective test concluded", "#");
    REQUIRE(text.find("_perf") == std::string::npos);
    CHECK(parse_nccl_tests_log(text, "anonymous").collective == c);
  }
}

TEST_CASE("logs of older nccl-tests, without the root column and with 'error' for '#wrong', read the same") {
  const std::string now = written(Collective::allgather);
  std::string old;
  for (std::size_t at = 0; at < now.size();) {  // drop the root column: titles and data
    const std::size_t end = now.find('\n', at);
    std::string line = now.substr(at, end - at);
    at = end + 1;
    if (line.find("  #wrong") != std::string::npos) {
      line.replace(line.find("    root"), 8, "");
      for (std::size_t w; (w = line.find("  #wrong")) != std::string::npos;) line.replace(w, 8, "   error");
    } else if (line.find("  none      -1") != std::string::npos) {
      line.replace(line.find("  none      -1"), 14, "  none");
    }
    old += line + "\n";
  }
  REQUIRE(old.find("root") == std::string::npos);
  const NcclTestsLog a = parse_nccl_tests_log(now, "now"), b = parse_nccl_tests_log(old, "old");
  CHECK(b.collective == Collective::allgather);
  REQUIRE(b.rows.size() == a.rows.size());
  for (std::size_t i = 0; i < a.rows.size(); ++i) {
    CHECK(b.rows[i].size_bytes == a.rows[i].size_bytes);
    CHECK(b.rows[i].measured_s() == a.rows[i].measured_s());
  }
}

TEST_CASE("malformed logs fail with the file and line number") {
  const std::string good = written();
  CHECK_THAT(error_of(""), Catch::StartsWith("t.log:1: empty file"));
  CHECK_THAT(error_of(std::string("\x7f" "ELF\x02\x01\x01\0\0", 9)), Catch::StartsWith("t.log:1: byte 0x7f: binary data"));
  // ib_write_bw prints its table with no '#' column titles of nccl-tests.
  CHECK_THAT(error_of(" #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"
                      " 65536      5000             11502.12            11500.35\t\t   0.184006\n"),
             Catch::StartsWith("t.log:2: a line of numbers before any nccl-tests column titles"));
  CHECK_THAT(error_of("just some text\nand more\n"), Catch::StartsWith("t.log:2: no nccl-tests column titles"));
  const std::size_t data_line = 1 + std::size_t(std::count(good.begin(), good.begin() + long(good.find("\n        4096")), '\n')) + 1;
  const std::string at = fmt::format("t.log:{}: ", data_line);
  CHECK_THAT(error_of(replace_line(good, "        4096", "        4096          1024     float     sum      -1    12.06")),
             Catch::StartsWith(at + "6 columns, expected 13"));
  CHECK_THAT(error_of(replace_line(good, "        4096",
                                   "        4096          1024     float     sum      -1    12.06    0.34    0.59    N/A    "
                                   "12.06    0.34    0.59    N/A    7")),
             Catch::StartsWith(at + "14 columns"));
  CHECK_THAT(error_of(replace_line(good, "        4096",
                                   "        4096          1024     float     sum      -1    fast    0.34    0.59    N/A    "
                                   "12.06    0.34    0.59    N/A")),
             Catch::StartsWith(at + "time 'fast' is not a number"));
  CHECK_THAT(error_of(replace_line(good, "        4096",
                                   "        4098          1024     float     sum      -1    12.06    0.34    0.59    N/A    "
                                   "12.06    0.34    0.59    N/A")),
             Catch::StartsWith(at + "size 4098 is not a whole number of float elements"));
  CHECK_THAT(error_of(replace_line(good, "# Collective test starting", "# Collective test starting: sendrecv_perf")),
             Catch::StartsWith("t.log:1: 'sendrecv_perf' is not a collective collsim models"));
  // Cut right after the column titles: no sizes.
  const std::string cut = good.substr(0, good.find("\n        4096") + 1);
  CHECK_THAT(error_of(cut), Catch::Contains("no data lines after the column titles"));
  std::string no_gpus = good;
  while (no_gpus.find("#  Rank") != std::string::npos) no_gpus = replace_line(no_gpus, "#  Rank", "#");
  CHECK_THAT(error_of(no_gpus), Catch::Contains("no GPU lines"));
}

TEST_CASE("calibrate --measured's fit recovers the efficiency a log was predicted with") {
  // The "measured" log: collsim's prediction on dgx-h100 with NVLink at efficiency 0.7
  // instead of the catalog's 0.844; fitted on the unaltered preset.
  std::string altered = preset_yaml("dgx-h100");
  const std::string key = "  nvlink4:\n";
  altered.insert(altered.find(key) + key.size(), "    efficiency: 0.7\n");
  const ClusterConfig cluster = parse_cluster_config(altered, "altered");
  PredictionRequest r = cluster_request(cluster);  // with the preset's runtime, as the fit predicts
  r.algorithms = {"ring"};
  r.sizes = {8, 64 << 10, 1 << 20, 16 << 20, 256 << 20};
  r.engine = EngineKind::flow;
  NcclTestsLog log;
  for (const PredictionRecord& rec : predict(r)) log.rows.push_back(nccl_tests_row(Collective::allreduce, 8, rec.bytes, rec.time_s));
  for (Rank k = 0; k < 8; ++k) log.ranks.push_back({k, "node0", "collsim prediction", k});
  log = parse_nccl_tests_log(nccl_tests_log_text(log), "altered.log");  // through the printed digits
  const MeasuredFit fit = fit_to_measured(log, {preset_yaml("dgx-h100"), "preset dgx-h100", "altered.log", "ring"});
  REQUIRE(fit.classes.size() == 1);
  CHECK(fit.classes[0].name == "nvlink4");
  CHECK(fit.classes[0].efficiency_before == Approx(20.6 / 25));  // NCCL's rate on the preset's H100s
  CHECK(fit.classes[0].efficiency == Approx(0.7).epsilon(0.01));
  CHECK(fit.classes[0].alpha_s == Approx(2e-6).epsilon(0.01));
  CHECK(fit.rms_before > 0.05);
  CHECK(fit.rms_after < 1e-3);
  const ClusterConfig fitted = parse_cluster_config(fit.yaml, "fitted");  // what it writes loads
  CHECK(fitted.topology->network.link_class(fitted.topology->network.find_link_class("nvlink4")).efficiency ==
        Approx(0.7).epsilon(0.01));
}
