// collectives/msccl_xml.cpp — MSCCL XML read into transfers (a run of every threadblock's
// steps, matching sends to receives), and schedules written out as threadblocks and steps.
#include "collectives/msccl_xml.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <numeric>
#include <optional>
#include <tuple>

#include <fmt/format.h>
#include <tinyxml2.h>

#include "base/error.hpp"
#include "base/file_io.hpp"
#include "collectives/algorithm.hpp"

namespace collsim {
namespace {

using tinyxml2::XMLElement;

// MSCCL's runtime runs at most this many steps in a threadblock (msccl.h, MSCCL_MAX_NUM_STEPS).
constexpr std::size_t kMscclMaxSteps = 256;
constexpr long long kMaxChunks = 1 << 24;

enum class StepType { send, receive, receive_reduce, receive_send, receive_reduce_send, copy, reduce, nop };

struct StepTypeName {
  const char* name;
  StepType type;
};
constexpr StepTypeName kStepTypes[] = {{"s", StepType::send},           {"r", StepType::receive},
                                       {"rrc", StepType::receive_reduce}, {"rcs", StepType::receive_send},
                                       {"rrcs", StepType::receive_reduce_send}, {"cpy", StepType::copy},
                                       {"re", StepType::reduce},         {"nop", StepType::nop}};

bool receives(StepType t) {
  return t == StepType::receive || t == StepType::receive_reduce || t == StepType::receive_send ||
         t == StepType::receive_reduce_send;
}
bool forwards(StepType t) { return t == StepType::receive_send || t == StepType::receive_reduce_send; }

// MSCCL's collective names (its XML parser's `coll` values) for those collsim reads and writes.
struct CollName {
  const char* name;
  Collective collective;
};
constexpr CollName kCollNames[] = {{"allreduce", Collective::allreduce},
                                   {"allgather", Collective::allgather},
                                   {"reduce_scatter", Collective::reduce_scatter},
                                   {"alltoall", Collective::alltoall}};

const char* msccl_name(Collective collective) {
  for (const CollName& c : kCollNames)
    if (c.collective == collective) return c.name;
  throw Error(fmt::format("MSCCL's XML has no {} that collsim can write (it names no root)", to_string(collective)));
}

// Where MSCCL's three buffers lie in collsim's address space (one data buffer [0, N), then
// scratch), in chunks of N / W, W being the whole buffer's chunks (nchunksperloop). MSCCL's
// in-place forms alias them as collsim does: an allgather's input is the rank's part of the
// output, a reduce-scatter's output is the rank's part of the input; an alltoall is out of
// place, its output being collsim's receive buffer (the W chunks after the data), and its
// scratch follows that.
struct BufferLayout {
  Collective collective = Collective::allreduce;
  Rank ranks = 1;
  std::uint64_t whole = 0;  // W

  std::uint64_t part() const { return whole / ranks; }
  std::uint64_t input_chunks() const { return collective == Collective::allgather ? part() : whole; }
  std::uint64_t output_chunks() const { return collective == Collective::reduce_scatter ? part() : whole; }
  // The chunk of collsim's address space where `buffer`'s chunk 0 lies on `gpu`.
  std::uint64_t base(char buffer, Rank gpu) const {
    const bool alltoall = collective == Collective::alltoall;
    if (buffer == 's') return alltoall ? 2 * whole : whole;
    if (buffer == 'i') return collective == Collective::allgather ? gpu * part() : 0;
    if (collective == Collective::reduce_scatter) return gpu * part();
    return alltoall ? whole : 0;
  }
  // Scratch chunks before MSCCL's own: the alltoall's receive buffer.
  std::uint64_t receive_chunks() const { return collective == Collective::alltoall ? whole : 0; }
};

struct XmlStep {
  StepType type = StepType::nop;
  char srcbuf = 'i', dstbuf = 'i';
  std::uint64_t srcoff = 0, dstoff = 0, cnt = 0;
  int depid = -1, deps = -1;
  int line = 0;
};

struct XmlThreadblock {
  int id = 0, send = -1, recv = -1, chan = 0;
  int line = 0;
  std::vector<XmlStep> steps;
};

struct XmlGpu {
  std::uint64_t scratch_chunks = 0;
  std::vector<XmlThreadblock> tbs;
  std::map<int, std::size_t> tb_index;  // tb id -> position in tbs
};

struct XmlAlgo {
  std::string name;
  Rank gpus = 0;
  std::uint64_t chunks = 0;  // nchunksperloop
  std::uint32_t segments = 1;  // collsim_segments (collsim's own attribute, which MSCCL ignores)
  BufferLayout layout;
  std::vector<XmlGpu> gpu;
};

class XmlReader {
 public:
  explicit XmlReader(std::string origin) : origin_(std::move(origin)) {}

  [[noreturn]] void fail(int line, std::string_view what) const {
    throw Error(fmt::format("{}:{}: {}", origin_, line, what));
  }

  long long number(const XMLElement& e, const char* name, long long min, long long max) const {
    const char* text = e.Attribute(name);
    if (!text) fail(e.GetLineNum(), fmt::format("<{}> has no '{}'", e.Name(), name));
    std::int64_t v = 0;
    if (e.QueryInt64Attribute(name, &v) != tinyxml2::XML_SUCCESS || v < min || v > max)
      fail(e.GetLineNum(), fmt::format("<{}> '{}' must be a whole number from {} to {} (got '{}')", e.Name(), name, min,
                                       max, one_line(text, 40)));
    return v;
  }

  std::string text(const XMLElement& e, const char* name) const {
    const char* v = e.Attribute(name);
    if (!v || !*v) fail(e.GetLineNum(), fmt::format("<{}> has no '{}'", e.Name(), name));
    return v;
  }

  char buffer(const XMLElement& e, const char* name) const {
    const std::string b = text(e, name);
    if (b != "i" && b != "o" && b != "s")
      fail(e.GetLineNum(), fmt::format("<step> '{}' must be i, o or s (got '{}')", name, one_line(b, 20)));
    return b[0];
  }

  XmlStep step(const XMLElement& e, std::size_t index) const {
    XmlStep s;
    s.line = e.GetLineNum();
    if (number(e, "s", 0, kMaxChunks) != static_cast<long long>(index))
      fail(s.line, fmt::format("<step> s must count the threadblock's steps from 0 (expected {})", index));
    const std::string type = text(e, "type");
    const auto* known = std::find_if(std::begin(kStepTypes), std::end(kStepTypes),
                                     [&](const StepTypeName& t) { return type == t.name; });
    if (known == std::end(kStepTypes))
      fail(s.line, fmt::format("step type '{}' is not one collsim reads (s, r, rrc, rcs, rrcs, cpy, re, nop)",
                               one_line(type, 20)));
    s.type = known->type;
    s.srcbuf = buffer(e, "srcbuf");
    s.dstbuf = buffer(e, "dstbuf");
    s.srcoff = number(e, "srcoff", 0, kMaxChunks);
    s.dstoff = number(e, "dstoff", 0, kMaxChunks);
    s.cnt = number(e, "cnt", s.type == StepType::nop ? 0 : 1, kMaxChunks);
    s.depid = int(number(e, "depid", -1, kMaxChunks));
    s.deps = int(number(e, "deps", -1, kMaxChunks));
    if ((s.depid < 0) != (s.deps < 0)) fail(s.line, "<step> depid and deps must both be -1 or both name a step");
    return s;
  }

  XmlThreadblock threadblock(const XMLElement& e, Rank gpus) const {
    XmlThreadblock tb;
    tb.line = e.GetLineNum();
    tb.id = int(number(e, "id", 0, kMaxChunks));
    tb.send = int(number(e, "send", -1, gpus - 1));
    tb.recv = int(number(e, "recv", -1, gpus - 1));
    tb.chan = int(number(e, "chan", 0, kMaxChunks));
    for (const XMLElement* s = e.FirstChildElement(); s; s = s->NextSiblingElement()) {
      if (std::string_view(s->Name()) != "step")
        fail(s->GetLineNum(), fmt::format("<{}> in a <tb>: only <step> belongs there", one_line(s->Name(), 20)));
      tb.steps.push_back(step(*s, tb.steps.size()));
    }
    return tb;
  }

  XmlAlgo algo(const XMLElement& root) const {
    if (std::string_view(root.Name()) != "algo") fail(root.GetLineNum(), "the document's element must be <algo>");
    XmlAlgo a;
    a.name = text(root, "name");
    if (std::any_of(a.name.begin(), a.name.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; }))
      fail(root.GetLineNum(), "<algo> name holds control bytes");
    const Collective collective = coll(root);
    a.gpus = Rank(number(root, "ngpus", 1, kMaxRanks));
    a.chunks = number(root, "nchunksperloop", 1, kMaxChunks);
    if (root.Attribute("collsim_segments")) a.segments = std::uint32_t(number(root, "collsim_segments", 1, kMaxChunks));
    a.layout = {collective, a.gpus, a.chunks};
    if (collective != Collective::allreduce && a.chunks % a.gpus != 0)
      fail(root.GetLineNum(), fmt::format("nchunksperloop ({}) must be a multiple of ngpus ({}) for {}: each rank's part "
                                          "is whole chunks",
                                          a.chunks, a.gpus, to_string(collective)));
    a.gpu.resize(a.gpus);
    std::vector<bool> seen(a.gpus);
    for (const XMLElement* g = root.FirstChildElement(); g; g = g->NextSiblingElement()) {
      if (std::string_view(g->Name()) != "gpu")
        fail(g->GetLineNum(), fmt::format("<{}> in <algo>: only <gpu> belongs there", one_line(g->Name(), 20)));
      const auto id = Rank(number(*g, "id", 0, a.gpus - 1));
      if (seen[id]) fail(g->GetLineNum(), fmt::format("gpu {} is given twice", id));
      seen[id] = true;
      XmlGpu& gpu = a.gpu[id];
      gpu.scratch_chunks = number(*g, "s_chunks", 0, kMaxChunks);
      expect_chunks(*g, "i_chunks", a.layout.input_chunks(), a.layout);
      expect_chunks(*g, "o_chunks", a.layout.output_chunks(), a.layout);
      for (const XMLElement* t = g->FirstChildElement(); t; t = t->NextSiblingElement()) {
        if (std::string_view(t->Name()) != "tb")
          fail(t->GetLineNum(), fmt::format("<{}> in a <gpu>: only <tb> belongs there", one_line(t->Name(), 20)));
        XmlThreadblock tb = threadblock(*t, a.gpus);
        if (!gpu.tb_index.emplace(tb.id, gpu.tbs.size()).second)
          fail(tb.line, fmt::format("threadblock {} is given twice on gpu {}", tb.id, id));
        gpu.tbs.push_back(std::move(tb));
      }
    }
    for (Rank g = 0; g < a.gpus; ++g)
      if (!seen[g]) fail(root.GetLineNum(), fmt::format("ngpus is {} and gpu {} is missing", a.gpus, g));
    return a;
  }

  const std::string& origin() const { return origin_; }

 private:
  Collective coll(const XMLElement& root) const {
    const std::string name = text(root, "coll");
    for (const CollName& c : kCollNames)
      if (name == c.name) return c.collective;
    fail(root.GetLineNum(), fmt::format("coll '{}': collsim reads MSCCL's allreduce, allgather, reduce_scatter and "
                                        "alltoall (MSCCL's XML names no root for broadcast and reduce)",
                                        one_line(name, 20)));
  }

  void expect_chunks(const XMLElement& gpu, const char* name, std::uint64_t expected, const BufferLayout& layout) const {
    if (number(gpu, name, 0, kMaxChunks) != static_cast<long long>(expected))
      fail(gpu.GetLineNum(), fmt::format("<gpu> {} must be {} for {} with nchunksperloop {} on {} GPUs", name, expected,
                                         to_string(layout.collective), layout.whole, layout.ranks));
  }

  std::string origin_;
};

// Runs every threadblock's steps in order, each when its dependencies are done, matching each
// connection's sends to its receives in order; each match is one transfer, appended when both
// sides are ready, so the list is in dependency order.
class XmlRun {
 public:
  XmlRun(const XmlAlgo& algo, const XmlReader& reader, std::uint64_t bytes)
      : algo_(algo), reader_(reader), chunk_bytes_(bytes / algo.chunks) {
    ScheduleInfo info;
    info.collective = algo.layout.collective;
    info.algorithm = algo.name;
    info.ranks = algo.gpus;
    info.bytes = bytes;
    info.segments = algo.segments;
    std::uint64_t scratch_chunks = 0;
    for (const XmlGpu& g : algo.gpu) scratch_chunks = std::max(scratch_chunks, g.scratch_chunks);
    info.scratch_bytes = (algo.layout.receive_chunks() + scratch_chunks) * chunk_bytes_;
    schedule_ = Schedule(info);
    for (Rank g = 0; g < algo.gpus; ++g)
      for (const XmlThreadblock& tb : algo.gpu[g].tbs) {
        state_[{g, tb.id}].done.resize(tb.steps.size());
        state_[{g, tb.id}].sent.resize(tb.steps.size());
        for (const XmlStep& s : tb.steps) check_step(g, tb, s);
      }
  }

  Schedule run() {
    for (bool progress = true; progress;) {
      progress = false;
      for (Rank g = 0; g < algo_.gpus; ++g)
        for (const XmlThreadblock& tb : algo_.gpu[g].tbs) progress |= advance(g, tb);
    }
    for (Rank g = 0; g < algo_.gpus; ++g)
      for (const XmlThreadblock& tb : algo_.gpu[g].tbs)
        if (const TbState& s = state_.at({g, tb.id}); s.pc < tb.steps.size())
          reader_.fail(tb.steps[s.pc].line,
                       fmt::format("step {} of threadblock {} on gpu {} never runs: the step or send it waits for never "
                                   "comes (a deadlock)",
                                   s.pc, tb.id, g));
    for (const auto& [connection, queue] : queues_)
      if (!queue.empty())
        reader_.fail(queue.front().line, fmt::format("this send from gpu {} to gpu {} is never received",
                                                     std::get<0>(connection), std::get<1>(connection)));
    return std::move(schedule_);
  }

 private:
  struct Posted {  // a send waiting for its receive
    Rank src = 0;
    ByteRange range;
    std::vector<TransferId> deps;
    Rank gpu = 0;
    int tb = 0;
    std::size_t step = 0;
    int line = 0;
  };
  // A threadblock's progress. A send is buffered, as MSCCL's: the threadblock goes on once it
  // is posted, and its next step waits only for what the send waited for; a step that names
  // the send in depid/deps waits for its transfer (the source is free again).
  struct TbState {
    std::size_t pc = 0;
    std::vector<std::optional<std::vector<TransferId>>> done;  // per step, once done: what the next step waits for
    std::vector<std::optional<TransferId>> sent;               // per sending step, once received: its transfer
  };
  using Connection = std::tuple<Rank, Rank, int>;  // sender, receiver, channel

  void check_step(Rank g, const XmlThreadblock& tb, const XmlStep& s) const {
    if ((s.type == StepType::send || forwards(s.type)) && tb.send < 0)
      reader_.fail(s.line, fmt::format("a sending step in threadblock {}, which has no send peer", tb.id));
    if (receives(s.type) && tb.recv < 0)
      reader_.fail(s.line, fmt::format("a receiving step in threadblock {}, which has no recv peer", tb.id));
    if (s.depid >= 0) {
      const auto it = algo_.gpu[g].tb_index.find(s.depid);
      if (it == algo_.gpu[g].tb_index.end() || std::size_t(s.deps) >= algo_.gpu[g].tbs[it->second].steps.size())
        reader_.fail(s.line, fmt::format("depid {} deps {} names no step of gpu {}", s.depid, s.deps, g));
    }
    // A send's dst and a plain receive's src are the peer's (MSCCL writes them, collsim needs them not).
    const bool local_src = s.type != StepType::nop && s.type != StepType::receive && s.type != StepType::receive_send;
    const bool local_dst = s.type != StepType::nop && s.type != StepType::send;
    if (local_src) range(g, s.srcbuf, s.srcoff, s.cnt, s.line);
    if (local_dst) range(g, s.dstbuf, s.dstoff, s.cnt, s.line);
    if (s.type == StepType::receive_reduce || s.type == StepType::receive_reduce_send)
      if (range(g, s.srcbuf, s.srcoff, s.cnt, s.line).offset != range(g, s.dstbuf, s.dstoff, s.cnt, s.line).offset)
        reader_.fail(s.line, "a receive-reduce whose src is not its dst: collsim reduces into the destination");
  }

  ByteRange range(Rank g, char buffer, std::uint64_t offset, std::uint64_t count, int line) const {
    const BufferLayout& layout = algo_.layout;
    const std::uint64_t limit = buffer == 's'   ? algo_.gpu[g].scratch_chunks
                                : buffer == 'i' ? layout.input_chunks()
                                                : layout.output_chunks();
    if (offset + count > limit)
      reader_.fail(line, fmt::format("chunks {}..{} of buffer {} are past its {} chunks", offset, offset + count, buffer,
                                     limit));
    return {(layout.base(buffer, g) + offset) * chunk_bytes_, count * chunk_bytes_};
  }

  ChunkId chunk(ByteRange r) {
    const auto [it, added] = chunk_ids_.emplace(std::make_pair(r.offset, r.bytes), ChunkId(schedule_.chunks().size()));
    if (added) schedule_.add_chunk(r);
    return it->second;
  }

  const XmlThreadblock& threadblock(Rank g, int id) const { return algo_.gpu[g].tbs[algo_.gpu[g].tb_index.at(id)]; }

  // What the step at `pc` waits for, or nothing while that is not done.
  std::optional<std::vector<TransferId>> prerequisites(Rank g, const XmlThreadblock& tb, std::size_t pc) const {
    std::vector<TransferId> deps;
    const TbState& s = state_.at({g, tb.id});
    if (pc > 0) deps = *s.done[pc - 1];
    const XmlStep& step = tb.steps[pc];
    if (step.depid >= 0) {
      const TbState& other = state_.at({g, step.depid});
      const auto index = std::size_t(step.deps);
      const StepType type = threadblock(g, step.depid).steps[index].type;
      if (type == StepType::send || forwards(type)) {
        if (!other.sent[index]) return std::nullopt;
        deps.push_back(*other.sent[index]);
      } else {
        if (!other.done[index]) return std::nullopt;
        deps.insert(deps.end(), other.done[index]->begin(), other.done[index]->end());
      }
    }
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    return deps;
  }

  TransferId append(Rank src, ByteRange from, Rank dst, ByteRange to, Op op, const std::vector<TransferId>& deps) {
    std::uint32_t step = 0;
    for (TransferId d : deps) step = std::max(step, levels_[d] + 1);
    levels_.push_back(step);
    return schedule_.append(src, chunk(from), dst, chunk(to), op, step, deps);
  }

  void finish(Rank g, const XmlThreadblock& tb, std::vector<TransferId> done) {
    TbState& s = state_.at({g, tb.id});
    s.done[s.pc] = std::move(done);
    ++s.pc;
  }

  void post(Rank g, const XmlThreadblock& tb, ByteRange from, std::vector<TransferId> deps, int line) {
    const std::size_t step = state_.at({g, tb.id}).pc;
    queues_[{g, Rank(tb.send), tb.chan}].push_back({g, from, std::move(deps), g, tb.id, step, line});
  }

  // The receive at `pc`, where its connection holds a send: the transfer, which the send's
  // dependents wait for.
  std::optional<TransferId> receive(Rank g, const XmlThreadblock& tb, const XmlStep& step, std::vector<TransferId> deps) {
    auto& queue = queues_[{Rank(tb.recv), g, tb.chan}];
    if (queue.empty()) return std::nullopt;
    Posted send = std::move(queue.front());
    queue.pop_front();
    const ByteRange to = range(g, step.dstbuf, step.dstoff, step.cnt, step.line);
    if (send.range.bytes != to.bytes)
      reader_.fail(step.line, fmt::format("receives {} chunks where its send (line {}) sends {}", step.cnt, send.line,
                                          send.range.bytes / chunk_bytes_));
    deps.insert(deps.end(), send.deps.begin(), send.deps.end());
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    const bool reduce = step.type == StepType::receive_reduce || step.type == StepType::receive_reduce_send;
    const TransferId t = append(send.src, send.range, g, to, reduce ? Op::reduce : Op::copy, deps);
    state_.at({send.gpu, send.tb}).sent[send.step] = t;
    return t;
  }

  // Runs the threadblock's next steps, up to its next transfer, if they can run now; whether
  // any did. One transfer per threadblock per sweep keeps the list in rounds, as the
  // threadblocks run side by side (the analytic engine takes a rank's ports in list order).
  bool advance(Rank g, const XmlThreadblock& tb) {
    bool progress = false;
    for (TbState* s = &state_.at({g, tb.id}); s->pc < tb.steps.size(); s = &state_.at({g, tb.id})) {
      const XmlStep& step = tb.steps[s->pc];
      std::optional<std::vector<TransferId>> deps = prerequisites(g, tb, s->pc);
      if (!deps) return progress;
      if (step.type == StepType::nop) {
        finish(g, tb, std::move(*deps));
      } else if (step.type == StepType::send) {
        post(g, tb, range(g, step.srcbuf, step.srcoff, step.cnt, step.line), *deps, step.line);
        finish(g, tb, std::move(*deps));
      } else if (step.type == StepType::copy || step.type == StepType::reduce) {
        const TransferId t = append(g, range(g, step.srcbuf, step.srcoff, step.cnt, step.line), g,
                                    range(g, step.dstbuf, step.dstoff, step.cnt, step.line),
                                    step.type == StepType::reduce ? Op::reduce : Op::copy, *deps);
        finish(g, tb, {t});
        return true;
      } else {
        const std::optional<TransferId> t = receive(g, tb, step, std::move(*deps));
        if (!t) return progress;
        if (forwards(step.type)) post(g, tb, range(g, step.dstbuf, step.dstoff, step.cnt, step.line), {*t}, step.line);
        finish(g, tb, {*t});
        return true;
      }
      progress = true;
    }
    return progress;
  }

  const XmlAlgo& algo_;
  const XmlReader& reader_;
  std::uint64_t chunk_bytes_;
  Schedule schedule_;
  std::map<std::pair<Rank, int>, TbState> state_;
  std::map<Connection, std::deque<Posted>> queues_;
  std::map<std::pair<std::uint64_t, std::uint64_t>, ChunkId> chunk_ids_;
  std::vector<std::uint32_t> levels_;
};


// ---- writing ----

// Where a transfer's step sits on one GPU: threadblock position and step index.
struct StepRef {
  std::size_t tb = 0;
  std::size_t step = 0;
};

struct OutStep {
  std::string type;
  char srcbuf = 'i', dstbuf = 'i';
  std::uint64_t srcoff = 0, dstoff = 0, cnt = 0;
  std::optional<StepRef> dep;
  bool hasdep = false;
};

struct OutThreadblock {
  int send = -1, recv = -1;
  int chan = 0;
  std::vector<OutStep> steps;
};

class XmlWriter {
 public:
  explicit XmlWriter(const Schedule& s)
      : s_(s),
        chunk_bytes_(common_chunk(s)),
        layout_{s.info().collective, s.info().ranks, s.info().bytes / chunk_bytes_},
        segments_(std::max<std::uint32_t>(s.info().segments, 1)),
        sliced_(sliced(s.info())),
        gpus_(s.info().ranks) {}

  std::string write() {
    send_at_.resize(s_.size());
    recv_at_.resize(s_.size());
    for (TransferId id = 0; id < s_.size(); ++id) place(id);
    for (auto& gpu : gpus_)
      for (auto& tb : gpu.tbs)
        for (const OutStep& step : tb.steps)
          if (step.dep) gpu.tbs[step.dep->tb].steps[step.dep->step].hasdep = true;
    return print();
  }

 private:
  struct OutGpu {
    std::vector<OutThreadblock> tbs;
    std::map<std::tuple<int, int, int>, std::size_t> tb_of;  // (send, recv, chan) -> position
  };

  // The largest size every chunk's offset and length are a multiple of.
  static std::uint64_t common_chunk(const Schedule& s) {
    std::uint64_t c = std::gcd(s.info().bytes, s.info().scratch_bytes);
    // every rank's part whole chunks (MSCCL's allgather input, reduce-scatter output, alltoall block)
    if (s.info().collective != Collective::allreduce) c = std::gcd(c, s.info().bytes / s.info().ranks);
    for (const ByteRange& r : s.chunks()) c = std::gcd(c, std::gcd(r.offset, r.bytes));
    if (c == 0) throw Error("an empty schedule has no chunks to write as MSCCL XML");
    return c;
  }

  // The buffer and offset of `chunk` on any GPU: the data in the buffer that spans all of it on
  // every rank (the allgather's output, else the input), the alltoall's receive buffer in its
  // output, the rest in scratch.
  std::pair<char, std::uint64_t> location(ChunkId chunk) const {
    const std::uint64_t at = s_.chunks()[chunk].offset / chunk_bytes_;
    const std::uint64_t whole = layout_.whole;
    if (at >= whole + layout_.receive_chunks()) return {'s', at - whole - layout_.receive_chunks()};
    if (at >= whole) return {'o', at - whole};
    return {layout_.collective == Collective::allgather ? 'o' : 'i', at};
  }

  // A pipelined schedule's segments run on their own channels: a threadblock runs its steps
  // in order, so one threadblock per peer would keep segment 0 of step s + 1 behind segment 1
  // of step s, which the schedule does not ask for. A ring's step labels say the slice (step
  // s S + k is slice k); other pipelined schedules cut the buffer into S segments in order.
  std::uint32_t lane(const Transfer& t) const {
    if (segments_ <= 1) return 0;
    if (sliced_) return t.step % segments_;
    const std::uint64_t at = std::min(s_.chunks()[t.dst_chunk].offset, s_.info().bytes - 1);
    return std::uint32_t(at * segments_ / s_.info().bytes);
  }

  std::size_t threadblock(Rank g, int send, int recv, int chan) {
    OutGpu& gpu = gpus_[g];
    const auto [it, added] = gpu.tb_of.emplace(std::make_tuple(send, recv, chan), gpu.tbs.size());
    if (added) gpu.tbs.push_back({send, recv, chan, {}});
    return it->second;
  }

  // Where transfer d touched rank g (its send, its receive, or its local step there), if it did.
  std::optional<StepRef> on_rank(TransferId d, Rank g) const {
    const Transfer t = s_.transfer(d);
    if (t.src == g) return send_at_[d];
    if (t.dst == g) return recv_at_[d];
    return std::nullopt;
  }

  // Appends `step` to threadblock `tb` of rank g after nop steps for all but the last of `deps`
  // (a step holds one dependency of its own; earlier steps of its threadblock that are not
  // sends are done before it anyway).
  StepRef add(Rank g, std::size_t tb, OutStep step, std::vector<StepRef> deps) {
    // A send is buffered (a later step of its threadblock does not wait for it): keep those.
    std::erase_if(deps, [&](const StepRef& r) { return r.tb == tb && gpus_[g].tbs[tb].steps[r.step].type != "s"; });
    std::vector<OutStep>& steps = gpus_[g].tbs[tb].steps;
    for (std::size_t i = 0; i + 1 < deps.size(); ++i) {
      OutStep nop{.type = "nop", .srcbuf = 'i', .dstbuf = 'i', .srcoff = 0, .dstoff = 0, .cnt = 0, .dep = deps[i],
                  .hasdep = false};
      steps.push_back(nop);
    }
    if (!deps.empty()) step.dep = deps.back();
    steps.push_back(step);
    if (steps.size() > kMscclMaxSteps)
      throw Error(fmt::format("rank {} needs more than {} steps in one threadblock, which MSCCL's runtime does not run "
                              "(give fewer ranks or segments)",
                              g, kMscclMaxSteps));
    return {tb, steps.size() - 1};
  }

  void place(TransferId id) {
    const Transfer t = s_.transfer(id);
    const auto [srcbuf, srcoff] = location(t.src_chunk);
    const auto [dstbuf, dstoff] = location(t.dst_chunk);
    const std::uint64_t cnt = s_.transfer_bytes(id) / chunk_bytes_;
    std::vector<StepRef> at_src, at_dst;
    for (TransferId d : t.deps) {
      if (std::optional<StepRef> r = on_rank(d, t.src)) at_src.push_back(*r);
      else if (std::optional<StepRef> r2 = on_rank(d, t.dst)) at_dst.push_back(*r2);
      else
        throw Error(fmt::format("transfer {} waits for transfer {}, which touches neither of its ranks: MSCCL's "
                                "dependencies stay on one GPU",
                                id, d));
    }
    const OutStep base{.type = "", .srcbuf = srcbuf, .dstbuf = dstbuf, .srcoff = srcoff, .dstoff = dstoff, .cnt = cnt,
                       .dep = std::nullopt, .hasdep = false};
    if (t.is_local()) {
      OutStep local = base;
      local.type = t.op == Op::reduce ? "re" : "cpy";
      at_src.insert(at_src.end(), at_dst.begin(), at_dst.end());
      send_at_[id] = recv_at_[id] = add(t.src, threadblock(t.src, -1, -1, lane(t)), local, at_src);
      return;
    }
    OutStep send = base, receive = base;
    send.type = "s";
    send_at_[id] = add(t.src, threadblock(t.src, int(t.dst), -1, lane(t)), send, at_src);
    receive.type = t.op == Op::reduce ? "rrc" : "r";
    if (t.op == Op::reduce) {  // rrc: dst = src + what arrives, with src the destination itself
      receive.srcbuf = dstbuf;
      receive.srcoff = dstoff;
    }
    recv_at_[id] = add(t.dst, threadblock(t.dst, -1, int(t.src), lane(t)), receive, at_dst);
  }

  std::string print() const {
    const ScheduleInfo& info = s_.info();
    const bool in_place = info.collective != Collective::alltoall;
    tinyxml2::XMLPrinter out;
    out.OpenElement("algo");
    out.PushAttribute("name", info.algorithm.c_str());
    out.PushAttribute("proto", "Simple");
    out.PushAttribute("nchannels", 1);
    out.PushAttribute("nchunksperloop", std::uint64_t(layout_.whole));
    out.PushAttribute("ngpus", info.ranks);
    out.PushAttribute("coll", msccl_name(info.collective));
    out.PushAttribute("inplace", in_place ? 1 : 0);
    out.PushAttribute("outofplace", in_place ? 0 : 1);
    out.PushAttribute("minBytes", 0);
    out.PushAttribute("maxBytes", 0);
    // Read back by collsim only: the segments a pipelined schedule streams (its size factors).
    if (info.segments > 1) out.PushAttribute("collsim_segments", info.segments);
    const std::uint64_t scratch_chunks = info.scratch_bytes / chunk_bytes_ - layout_.receive_chunks();
    for (Rank g = 0; g < gpus_.size(); ++g) {
      out.OpenElement("gpu");
      out.PushAttribute("id", g);
      out.PushAttribute("i_chunks", std::uint64_t(layout_.input_chunks()));
      out.PushAttribute("o_chunks", std::uint64_t(layout_.output_chunks()));
      out.PushAttribute("s_chunks", std::uint64_t(scratch_chunks));
      for (std::size_t b = 0; b < gpus_[g].tbs.size(); ++b) print_threadblock(out, gpus_[g].tbs[b], int(b));
      out.CloseElement();
    }
    out.CloseElement();
    return out.CStr();
  }

  static void print_threadblock(tinyxml2::XMLPrinter& out, const OutThreadblock& tb, int id) {
    out.OpenElement("tb");
    out.PushAttribute("id", id);
    out.PushAttribute("send", tb.send);
    out.PushAttribute("recv", tb.recv);
    out.PushAttribute("chan", tb.chan);
    for (std::size_t i = 0; i < tb.steps.size(); ++i) {
      const OutStep& s = tb.steps[i];
      out.OpenElement("step");
      out.PushAttribute("s", std::uint64_t(i));
      out.PushAttribute("type", s.type.c_str());
      out.PushAttribute("srcbuf", std::string(1, s.srcbuf).c_str());
      out.PushAttribute("srcoff", s.srcoff);
      out.PushAttribute("dstbuf", std::string(1, s.dstbuf).c_str());
      out.PushAttribute("dstoff", s.dstoff);
      out.PushAttribute("cnt", s.cnt);
      out.PushAttribute("depid", s.dep ? int(s.dep->tb) : -1);
      out.PushAttribute("deps", s.dep ? int(s.dep->step) : -1);
      out.PushAttribute("hasdep", s.hasdep ? 1 : 0);
      out.CloseElement();
    }
    out.CloseElement();
  }

  // Whether the step labels say the slice (pipelined rings: step s S + k is slice k,
  // collectives/algorithm.hpp).
  static bool sliced(const ScheduleInfo& info) {
    const AlgorithmEntry* entry = lookup_algorithm(info.algorithm);
    return entry && entry->sliced_steps;
  }

  const Schedule& s_;
  std::uint64_t chunk_bytes_;
  BufferLayout layout_;
  std::uint32_t segments_;
  bool sliced_;
  std::vector<OutGpu> gpus_;
  std::vector<StepRef> send_at_, recv_at_;
};

}  // namespace

Schedule parse_msccl_xml(const std::string& text, const std::string& origin, std::uint64_t bytes) {
  tinyxml2::XMLDocument doc;
  if (doc.Parse(text.data(), text.size()) != tinyxml2::XML_SUCCESS)
    throw Error(fmt::format("{}:{}: not well-formed XML: {}", origin, doc.ErrorLineNum(), one_line(doc.ErrorStr(), 120)));
  const XmlReader reader(origin);
  if (!doc.RootElement()) reader.fail(1, "no <algo> element");
  const XmlAlgo algo = reader.algo(*doc.RootElement());
  if (bytes == 0 || bytes % algo.chunks != 0)
    throw Error(fmt::format("{}: {} bytes do not cut into its {} chunks (nchunksperloop): give --bytes a multiple of {}",
                            origin, bytes, algo.chunks, algo.chunks));
  return XmlRun(algo, reader, bytes).run();
}

Schedule load_msccl_xml(const std::string& path, std::uint64_t bytes) {
  return parse_msccl_xml(read_text_file(path, "MSCCL XML"), path, bytes);
}

std::string schedule_to_msccl_xml(const Schedule& schedule) {
  const ScheduleInfo& info = schedule.info();
  const Collective c = info.collective;
  if (c == Collective::broadcast || c == Collective::reduce)
    throw Error(fmt::format("{} is a {}: MSCCL's XML names no root, so collsim writes allreduce, allgather, "
                            "reduce-scatter and alltoall only",
                            info.algorithm, to_string(c)));
  if (!info.pair_bytes.empty())
    throw Error("an all-to-all-v (--matrix) has a size per pair; MSCCL's XML cuts buffers into equal chunks, so it is "
                "written as JSON only (--format json)");
  if (c != Collective::allreduce && info.bytes % info.ranks != 0)
    throw Error(fmt::format("{} bytes do not cut into {} equal parts, which MSCCL's {} needs: give --bytes a multiple "
                            "of {}",
                            info.bytes, info.ranks, msccl_name(c), info.ranks));
  if (info.reducers > 0)
    throw Error(fmt::format("{} reduces in switches, which MSCCL's GPU steps cannot express", info.algorithm));
  return XmlWriter(schedule).write();
}

}  // namespace collsim
