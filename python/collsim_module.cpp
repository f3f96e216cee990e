// python/collsim_module.cpp — the `collsim` Python module: the C++ schedules, checker,
// explanation, SVG pictures, clusters and engines, for notebooks. Nothing is re-derived
// here: every function calls the same code as the command line, and data that the command
// line prints as JSON (explain, predict records) reaches Python through that same JSON, so
// notebooks and `collsim ... --format json` agree to the last digit.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "base/error.hpp"
#include "base/units.hpp"
#include "collectives/algorithm.hpp"
#include "collectives/checker.hpp"
#include "collectives/draw_svg.hpp"
#include "collectives/explain_json.hpp"
#include "collectives/schedule_json.hpp"
#include "sim/prediction.hpp"
#include "sim/protocol.hpp"
#include "sim/trace.hpp"
#include "topologies/cluster_config.hpp"
#include "sweep/sweep_run.hpp"
#include "validate/validation_run.hpp"

namespace py = pybind11;
using namespace collsim;

namespace {

py::object to_python(const nlohmann::json& j) { return py::module_::import("json").attr("loads")(j.dump()); }

// Sizes as Python gives them: an int, a string ("1M", "1K:1G", "4K,1G"), or a list of either.
std::vector<std::uint64_t> sizes_of(const py::handle& sizes) {
  if (py::isinstance<py::int_>(sizes)) return {sizes.cast<std::uint64_t>()};
  if (py::isinstance<py::str>(sizes)) return parse_size_list(sizes.cast<std::string>());
  std::vector<std::uint64_t> out;
  for (const py::handle& item : sizes)
    for (std::uint64_t s : sizes_of(item)) out.push_back(s);
  return out;
}

std::vector<std::string> names_of(const py::handle& names) {
  // "ring,two-tree" names several, as on the command line
  if (py::isinstance<py::str>(names)) return parse_name_list(names.cast<std::string>(), "algorithm");
  return names.cast<std::vector<std::string>>();
}

// ---- schedules ------------------------------------------------------------------------

Schedule make_schedule(const std::string& algorithm, Rank ranks, const py::object& bytes, const std::string& collective,
                       std::uint32_t segments, Rank ranks_per_node, Rank root) {
  ScheduleRequest r;
  r.collective = parse_collective(collective);
  r.ranks = ranks;
  // No size: enough bytes that every chunk holds at least one (as `collsim explain`).
  r.bytes = bytes.is_none() ? std::uint64_t(ranks) * std::max<std::uint32_t>(segments, 1) * 2 : sizes_of(bytes).at(0);
  r.segments = segments;
  r.ranks_per_node = ranks_per_node;
  r.root = root;
  return generate_schedule(algorithm, r);
}

// Transfers as columns (a dict of equal-length lists), ready for pandas.DataFrame.
py::dict transfer_columns(const Schedule& s) {
  std::vector<std::uint32_t> id, src, dst, src_chunk, dst_chunk, step, deps;
  std::vector<std::uint64_t> bytes;
  std::vector<std::string> op, phase;
  for (TransferId t = 0; t < s.size(); ++t) {
    const Transfer x = s.transfer(t);
    id.push_back(t);
    src.push_back(x.src);
    dst.push_back(x.dst);
    src_chunk.push_back(x.src_chunk);
    dst_chunk.push_back(x.dst_chunk);
    step.push_back(x.step);
    deps.push_back(std::uint32_t(x.deps.size()));
    bytes.push_back(s.transfer_bytes(t));
    op.emplace_back(to_string(x.op));
    const Phase* p = s.phase_of_step(x.step);
    phase.push_back(p ? p->name : "");
  }
  py::dict out;
  out["id"] = id;
  out["src"] = src;
  out["dst"] = dst;
  out["op"] = op;
  out["step"] = step;
  out["bytes"] = bytes;
  out["phase"] = phase;
  out["src_chunk"] = src_chunk;
  out["dst_chunk"] = dst_chunk;
  out["deps"] = deps;
  return out;
}

py::dict check_report(const Schedule& s) {
  const CheckReport r = check_schedule(s);
  py::dict out;
  out["valid"] = true;
  out["exact"] = r.exact;
  out["transfers"] = r.transfers;
  out["dependencies"] = r.dependencies;
  out["elements"] = r.elements;
  return out;
}

void bind_schedule(py::module_& m) {
  py::class_<Schedule>(m, "Schedule", "A collective's schedule: the DAG of chunk transfers every engine consumes")
      .def_property_readonly("algorithm", [](const Schedule& s) { return s.info().algorithm; })
      .def_property_readonly("collective", [](const Schedule& s) { return std::string(to_string(s.info().collective)); })
      .def_property_readonly("ranks", [](const Schedule& s) { return s.info().ranks; })
      .def_property_readonly("bytes", [](const Schedule& s) { return s.info().bytes; })
      .def_property_readonly("segments", [](const Schedule& s) { return s.info().segments; })
      .def_property_readonly("steps", &Schedule::step_count)
      .def_property_readonly("phases", [](const Schedule& s) {
        py::list out;
        for (const Phase& p : s.phases()) out.append(py::dict(py::arg("name") = p.name, py::arg("first_step") = p.first_step,
                                                              py::arg("steps") = p.step_count));
        return out;
      })
      .def("__len__", &Schedule::size)
      .def("transfers", &transfer_columns, "Transfers as columns: id, src, dst, op, step, bytes, phase, chunks, deps")
      .def("check", &check_report, "Prove the schedule (collectives/checker.hpp); raises ValueError on a violation")
      .def("explain", [](const Schedule& s) { return to_python(explanation_json(s, explain_schedule(s))); },
           "Every rank's chunks after every step, as `collsim explain --format json`")
      .def("svg", &schedule_svg, "Time-space diagram (and trees of tree/two-tree) as SVG text")
      .def("to_json", [](const Schedule& s) { return schedule_to_json(s).dump(); }, "As `collsim schedule`")
      .def("__repr__", [](const Schedule& s) {
        return fmt::format("<collsim.Schedule {} {} on {} ranks, {} bytes, {} transfers>", s.info().algorithm,
                           to_string(s.info().collective), s.info().ranks, s.info().bytes, s.size());
      });
  m.def("schedule", &make_schedule, py::arg("algorithm"), py::arg("ranks"), py::arg("bytes") = py::none(),
        py::arg("collective") = "allreduce", py::arg("segments") = 0, py::arg("ranks_per_node") = 0, py::arg("root") = 0,
        "Generate a schedule (bytes: int or '1M'; none: a few bytes per chunk, for teaching)");
}

// ---- clusters and predictions ---------------------------------------------------------

// ranks and placement, as `collsim predict --ranks --placement` applies them (ClusterConfig::place).
ClusterConfig placed(ClusterConfig c, Rank ranks, const std::string& placement, std::uint64_t seed) {
  std::optional<Placement> p;
  if (!placement.empty()) p = Placement{parse_placement_kind(placement), seed, {}};
  c.place(ranks, p);
  return c;
}

ClusterConfig flat_cluster(Rank ranks, double bandwidth, double alpha, double gamma, Rank ranks_per_node,
                           double intra_bandwidth, double intra_alpha) {
  CostModel cost = CostModel::uniform(alpha, 1.0 / bandwidth, gamma);
  if (ranks_per_node > 0) {
    cost.ranks_per_node = ranks_per_node;
    cost.intra_node = {intra_alpha >= 0 ? intra_alpha : alpha, 1.0 / (intra_bandwidth > 0 ? intra_bandwidth : bandwidth)};
  }
  return collsim::flat_cluster("what-if (flat, contention-free)", cost, ranks);
}

// As `collsim predict`, with its defaults (cluster_request: engine auto, one channel per NIC,
// Simple, the config's sizes) and its options; ranks and placement re-place a copy of the
// cluster as --ranks and --placement do.
py::list predict_records(ClusterConfig c, const py::object& algorithms, const py::object& sizes,
                         const std::string& collective, const std::string& engine, std::uint32_t segments,
                         std::uint32_t channels, const std::optional<std::string>& protocol, Rank ranks,
                         const std::string& placement,
                         std::uint64_t placement_seed, const std::string& ports, const std::string& stream,
                         const std::string& trace, std::uint32_t gpus_per_thread, std::uint32_t jobs) {
  if (ranks > 0 || !placement.empty()) c = placed(std::move(c), ranks, placement, placement_seed);
  PredictionRequest r = cluster_request(c);
  r.collective = parse_collective(collective);
  r.algorithms = names_of(algorithms);
  if (!sizes.is_none()) r.sizes = sizes_of(sizes);
  r.segments = segments;
  r.channels = channels;
  set_gpus_per_thread(r, c, gpus_per_thread);
  r.jobs = jobs;
  if (engine != "auto") r.engine = find_engine(engine).kind;
  // As predict's --protocol: none given, Simple for named algorithms and for "nccl" every protocol
  // the cluster's runtime.proto allows (LL128 where NCCL enables it: ll128_left_out); given, that
  // one (NCCL_PROTO for "nccl"), or 'auto' the fastest of each.
  if (protocol) {
    r.protocol = *protocol == "auto" ? std::nullopt : std::optional<Protocol>(find_protocol(*protocol));
    r.nccl_protocol = r.protocol;
  }
  if (ports != "one" && ports != "unlimited") throw Error(fmt::format("ports: expected one or unlimited, got '{}'", ports));
  r.run.one_port = ports == "one";
  if (stream == "auto") r.streaming = Streaming::when_large;
  else if (stream == "always") r.streaming = Streaming::always;
  else if (stream == "never") r.streaming = Streaming::never;
  else throw Error(fmt::format("stream: expected auto, always or never, got '{}'", stream));
  r.run.flow.critical_path = !trace.empty();  // per-transfer records only for a trace, as the command line
  std::unique_ptr<ChromeTrace> chrome;
  if (!trace.empty()) {  // as `collsim predict --trace FILE` (flow engine)
    if (r.engine != EngineKind::flow) throw Error("a trace records flow-engine runs: use engine='flow' (or 'auto' on a topology)");
    chrome = std::make_unique<ChromeTrace>(trace);
    r.run.flow.timeline = true;
    r.on_flow_run = [&](const PredictionRecord& rec, const Schedule& s, const FlowResult& result) {
      chrome->add_run(fmt::format("{} {}", rec.algorithm, format_size(rec.bytes)), s, *c.topology, result,
                      c.cost.gamma_s_per_byte, trace_runtime(rec, c.runtime));
    };
  }
  const std::vector<PredictionRecord> records = predict(r);
  if (chrome) chrome->close();
  py::list out;
  for (const PredictionRecord& rec : records) out.append(to_python(to_json(rec)));
  return out;
}

void bind_cluster(py::module_& m) {
  py::class_<ClusterConfig>(m, "Cluster", "A cluster: a modeled network (topology) or a flat alpha-beta model")
      .def_readonly("name", &ClusterConfig::name)
      .def_readonly("description", &ClusterConfig::description)
      .def_readonly("ranks", &ClusterConfig::ranks)
      .def_property_readonly("has_topology", [](const ClusterConfig& c) { return c.topology->shares_links; },
                             "False for a flat alpha-beta network (its network is generated from two link classes)")
      .def_property_readonly("summary", [](const ClusterConfig& c) { return c.topology->fabric_summary; })
      .def_property_readonly("placement", [](const ClusterConfig& c) { return describe(c.topology->placement); })
      .def("__repr__", [](const ClusterConfig& c) { return fmt::format("<collsim.Cluster {}: {} ranks>", c.name, c.ranks); });
  m.def("preset", [](const std::string& name, Rank ranks, const std::string& p, std::uint64_t seed) {
        return placed(load_preset(name), ranks, p, seed);
      }, py::arg("name"), py::arg("ranks") = 0, py::arg("placement") = "", py::arg("placement_seed") = 1,
         "A cluster compiled in from configs/ (see presets())");
  m.def("load_config", [](const std::string& path, Rank ranks, const std::string& p, std::uint64_t seed) {
        return placed(load_cluster_config(path), ranks, p, seed);
      }, py::arg("path"), py::arg("ranks") = 0, py::arg("placement") = "", py::arg("placement_seed") = 1,
         "A cluster YAML file (configs/README.md)");
  m.def("config_from_yaml", [](const std::string& text, Rank ranks, const std::string& p, std::uint64_t seed) {
        return placed(parse_cluster_config(text, "<python>"), ranks, p, seed);
      }, py::arg("yaml"), py::arg("ranks") = 0, py::arg("placement") = "", py::arg("placement_seed") = 1,
         "A cluster from YAML text");
  m.def("default_cluster", &default_cluster_config, "Seed 000's 40 GPUs (configs/baidu-40gpu.yaml)");
  m.def("flat_cluster", &flat_cluster, py::arg("ranks"), py::arg("bandwidth"), py::arg("alpha") = 0.0,
        py::arg("gamma") = 0.0, py::arg("ranks_per_node") = 0, py::arg("intra_bandwidth") = 0.0,
        py::arg("intra_alpha") = -1.0, "A flat what-if network: bandwidth in bytes/s, alpha in s, gamma in s/byte");
  m.def("predict", &predict_records, py::arg("cluster"), py::arg("algorithms") = "all", py::arg("sizes") = py::none(),
        py::arg("collective") = "allreduce", py::arg("engine") = "auto", py::arg("segments") = 0,
        py::arg("channels") = 0, py::arg("protocol") = py::none(), py::arg("ranks") = 0, py::arg("placement") = "",
        py::arg("placement_seed") = 1, py::arg("ports") = "one", py::arg("stream") = "auto", py::arg("trace") = "",
        py::arg("gpus_per_thread") = 1, py::arg("jobs") = 0,
        "Predict time per algorithm and size; records as `collsim predict --format json`, with its defaults and "
        "options: engine 'auto' (flow on a cluster with a topology, analytic on a flat network), 'analytic', 'flow' "
        "or 'simgrid'; channels 0: one per NIC the ranks span; protocol 'simple', 'll', 'll128' or 'auto' (None: Simple, "
        "and for 'nccl' NCCL's choice among what the cluster's runtime.proto allows; given, NCCL_PROTO for 'nccl'); "
        "ranks and "
        "placement ('linear', 'round-robin', 'random', with placement_seed) re-place the cluster's ranks; ports 'one' "
        "or 'unlimited' (analytic); stream 'auto', 'always' or 'never' (flow); trace: write a Chrome trace of the "
        "flow-engine runs to this file; gpus_per_thread: GPUs one host thread launches each collective on "
        "(nccl-tests -g), as --gpus-per-thread; jobs: runs predicted at once, as --jobs (0: one per core, 1: one "
        "after another; the same records either way)");
}

// ---- validation ----------------------------------------------------------------------------

// The workers: beside the build's collsim when this module sits in build/python (they are in
// build/bin); an installed module (`pip install .`) looks in the build tree it was built from.
std::string default_worker_dir() {
  const std::string module = py::module_::import("collsim").attr("__file__").cast<std::string>();
  const std::filesystem::path beside = std::filesystem::path(module).parent_path().parent_path() / "bin";
  if (std::filesystem::exists(beside / "collsim-mpi-worker")) return beside.string();
  return COLLSIM_BUILD_BIN_DIR;
}

// As `collsim validate --backend B`: calibrate, predict, execute, write the report folder.
py::dict validate_here(const std::string& backend, const std::vector<Rank>& ranks, const std::string& algorithms,
                       const std::string& sizes, std::uint32_t iterations, std::uint32_t warmup, const std::string& out,
                       const std::string& worker_dir) {
  ValidationPlan plan{.backend = backend, .ranks = ranks, .algorithms = algorithms, .sizes = sizes,
                      .iterations = iterations, .warmup = warmup, .out = out};
  plan.launch.worker_dir = worker_dir.empty() ? default_worker_dir() : worker_dir;
  const ValidationOutcome outcome = run_validation(plan);
  py::list rows;
  for (const ValidationRow& r : outcome.rows)
    rows.append(py::dict(py::arg("algorithm") = r.algorithm, py::arg("ranks") = r.ranks, py::arg("bytes") = r.bytes,
                         py::arg("predicted_s") = r.predicted_s, py::arg("measured_s") = r.measured_median_s,
                         py::arg("error_pct") = r.error_pct()));
  return py::dict(py::arg("folder") = outcome.folder.string(), py::arg("rows") = rows,
                  py::arg("median_abs_error_pct") = outcome.summary.median_abs_error_pct,
                  py::arg("p90_abs_error_pct") = outcome.summary.p90_abs_error_pct);
}

void bind_validation(py::module_& m) {
  m.def("validate", &validate_here, py::arg("backend"), py::arg("ranks") = std::vector<Rank>{2, 4},
        py::arg("algorithms") = "all", py::arg("sizes") = "4K,64K,1M,16M", py::arg("iterations") = 10,
        py::arg("warmup") = 2, py::arg("out") = "", py::arg("worker_dir") = "",
        "As `collsim validate --backend B`: calibrate this machine, predict (flow engine), execute the same "
        "schedules, write the report folder; returns its rows and summary. worker_dir: the build's bin/ by default");
}

// ---- sweeps --------------------------------------------------------------------------------

// The sweep's workers run `collsim sweep-worker`: the build's collsim, found as the MPI workers are.
std::string sweep_worker_dir() {
  const std::string module = py::module_::import("collsim").attr("__file__").cast<std::string>();
  const std::filesystem::path beside = std::filesystem::path(module).parent_path().parent_path() / "bin";
  if (std::filesystem::exists(beside / "collsim")) return beside.string();
  return COLLSIM_BUILD_BIN_DIR;
}

// As `collsim sweep FILE -o OUT`: the results table as a pandas DataFrame (its folder, with the
// pictures and summary, in attrs["folder"]). Refused and failed points are rows with their
// status and error, as in results.csv, not exceptions.
py::object sweep_here(const std::string& file, const std::string& out, unsigned workers, Rank mpi, bool resume,
                      const std::string& hostfile, const std::string& worker_dir) {
  const Sweep sweep = load_sweep(file);
  SweepOptions o;
  o.out = out.empty() ? std::filesystem::path(sweep.name + "-sweep") : std::filesystem::path(out);
  o.workers = workers;
  o.mpi_ranks = mpi;
  o.resume = resume;
  o.launch.hostfile = hostfile;
  o.launch.worker_dir = worker_dir.empty() ? sweep_worker_dir() : worker_dir;
  run_sweep(sweep, o);
  py::object frame = py::module_::import("pandas").attr("read_csv")((o.out / kResultsFile).string(),
                                                                    py::arg("dtype") = py::dict(py::arg("hash") = "str"));
  frame.attr("attrs")["folder"] = o.out.string();
  return frame;
}

void bind_sweep(py::module_& m) {
  m.def("sweep", &sweep_here, py::arg("file"), py::arg("out") = "", py::arg("workers") = 0, py::arg("mpi") = 0,
        py::arg("resume") = false, py::arg("hostfile") = "", py::arg("worker_dir") = "",
        "As `collsim sweep FILE -o OUT` (configs/sweeps/README.md): every point of the sweep file on `workers` local "
        "processes (0: one per core) or under mpirun with `mpi` ranks; returns results.csv as a pandas DataFrame. out: "
        "the folder (default NAME-sweep); resume: keep the rows already there that still hold");
}

}  // namespace

PYBIND11_MODULE(collsim, m) {
  m.doc() = "collsim: collective schedules, their checker, pictures and engines (see notebooks/)";
  py::register_exception<Error>(m, "Error", PyExc_ValueError);
  m.def("algorithms", [] {
    py::list out;
    for (const AlgorithmEntry& a : algorithm_table()) {
      std::vector<std::string> collectives;
      for (Collective c : a.collectives) collectives.emplace_back(to_string(c));
      out.append(py::dict(py::arg("name") = std::string(a.name), py::arg("summary") = std::string(a.summary),
                          py::arg("collectives") = collectives, py::arg("pipelined") = a.pipelined));
    }
    return out;
  }, "Every algorithm: name, summary, collectives, pipelined");
  m.def("presets", &preset_names);
  m.def("engines", &available_engines);
  m.def("format_size", &format_size);
  m.def("format_seconds", &format_seconds);
  bind_schedule(m);
  bind_cluster(m);
  bind_validation(m);
  bind_sweep(m);
}
