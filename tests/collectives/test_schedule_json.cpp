// tests/collectives/test_schedule_json.cpp — the JSON form of the schedule IR: every
// generated schedule round-trips exactly, and inconsistent documents are refused with a
// one-line message (collectives/schedule_json.hpp).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "base/error.hpp"
#include "collectives/algorithm.hpp"
#include "collectives/schedule_json.hpp"

using namespace collsim;
using nlohmann::json;

namespace {

// A file in the temporary directory, removed when the test ends.
class TempFile {
 public:
  explicit TempFile(const std::string& stem) {
    std::random_device random;
    path_ = std::filesystem::temp_directory_path() /
            (stem + "_" + std::to_string(random()) + "_" + std::to_string(random()) + ".json");
  }
  ~TempFile() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  REQUIRE(out.good());
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

Schedule ring4() {
  ScheduleRequest request;
  request.collective = Collective::allreduce;
  request.ranks = 4;
  request.bytes = 7;  // chunks of 2, 2, 2 and 1 bytes
  return generate_schedule("ring", request);
}

// The message schedule_from_json throws for `document`, or "" when it loads.
std::string load_error(const json& document) {
  try {
    (void)schedule_from_json(document);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Expects `document` to be refused with a one-line message containing `phrase`.
void require_refused(const json& document, const std::string& phrase) {
  const std::string message = load_error(document);
  INFO("message: " << message);
  REQUIRE_FALSE(message.empty());
  CHECK(message.find(phrase) != std::string::npos);
  CHECK(message.find('\n') == std::string::npos);
}

}  // namespace

TEST_CASE("every generated schedule survives a JSON round trip unchanged", "[json]") {
  std::size_t schedules = 0;
  for (const AlgorithmEntry& entry : algorithm_table()) {
    for (Collective collective : entry.collectives) {
      for (Rank p : {1u, 2u, 5u, 8u}) {
        for (std::uint64_t n : {std::uint64_t(0), std::uint64_t(7), std::uint64_t(1000)}) {
          ScheduleRequest request;
          request.collective = collective;
          request.ranks = p;
          request.bytes = n;
          request.root = (collective == Collective::broadcast || collective == Collective::reduce) ? p - 1 : 0;
          if (entry.pipelined) request.segments = 3;
          if (entry.needs_ranks_per_node) request.ranks_per_node = p % 2 == 0 ? 2 : 1;
          INFO(entry.name << " " << to_string(collective) << " P=" << p << " N=" << n);
          const Schedule original = generate_schedule(entry.name, request);
          const Schedule copy = schedule_from_json(json::parse(schedule_to_json(original).dump()));
          CHECK(copy == original);
          CHECK(copy.info() == original.info());
          CHECK(copy.size() == original.size());
          ++schedules;
        }
      }
    }
  }
  CHECK(schedules >= 4 * 3 * algorithm_table().size());
}

TEST_CASE("a schedule converted to JSON in memory loads back without going through text", "[json]") {
  for (const char* algorithm : {"ring", "tree", "recursive-doubling"}) {
    INFO(algorithm);
    ScheduleRequest request;
    request.ranks = 5;
    request.bytes = 1000;
    const Schedule original = generate_schedule(algorithm, request);
    CHECK(schedule_from_json(schedule_to_json(original)) == original);
  }
}

TEST_CASE("schedule JSON names the format, the request and each transfer's fields", "[json]") {
  const json j = schedule_to_json(ring4());
  CHECK(j.at("format") == "collsim-schedule");
  CHECK(j.at("version") == 1);
  CHECK(j.at("collective") == "allreduce");
  CHECK(j.at("algorithm") == "ring");
  CHECK(j.at("ranks") == 4);
  CHECK(j.at("bytes") == 7);
  CHECK(j.at("chunks").size() == 4);
  CHECK(j.at("phases").size() == 2);
  CHECK(j.at("phases")[0].at("name") == "reduce-scatter");
  REQUIRE(j.at("transfers").size() == 24);
  const json& first = j.at("transfers")[0];
  CHECK(first.at("src") == 0);
  CHECK(first.at("dst") == 1);
  CHECK(first.at("op") == "reduce");
  CHECK(first.at("step") == 0);
  CHECK(first.at("deps").is_array());
}

TEST_CASE("a saved schedule loads back equal to the original", "[json]") {
  ScheduleRequest request;
  request.ranks = 6;
  request.bytes = 4099;
  for (const char* algorithm : {"ring", "two-tree", "rabenseifner", "tree"}) {
    INFO(algorithm);
    request.segments = find_algorithm(algorithm).pipelined ? 2 : 0;
    const Schedule original = generate_schedule(algorithm, request);
    TempFile file("collsim_roundtrip");
    save_schedule(original, file.path());
    CHECK(load_schedule(file.path()) == original);
  }
}

TEST_CASE("loading a truncated schedule file fails with a one-line error naming the file", "[json]") {
  TempFile whole("collsim_whole"), cut("collsim_truncated");
  save_schedule(ring4(), whole.path());
  const std::string text = read_text(whole.path());
  REQUIRE(text.size() > 40);
  write_text(cut.path(), text.substr(0, text.size() - 40));
  try {
    (void)load_schedule(cut.path());
    FAIL("a truncated file loaded");
  } catch (const Error& e) {
    const std::string message = e.what();
    INFO(message);
    CHECK(message.find(cut.path().string()) != std::string::npos);
    CHECK(message.find("not valid JSON") != std::string::npos);
    CHECK(message.find('\n') == std::string::npos);
  }
}

TEST_CASE("loading a missing schedule file fails naming the file", "[json]") {
  const std::filesystem::path missing = std::filesystem::temp_directory_path() / "collsim_no_such_dir" / "x.json";
  CHECK_THROWS_AS(load_schedule(missing), Error);
  CHECK_THROWS_WITH(load_schedule(missing), Catch::Contains(missing.string()));
}

TEST_CASE("saving to a directory that does not exist fails naming the file", "[json]") {
  const std::filesystem::path nowhere = std::filesystem::temp_directory_path() / "collsim_no_such_dir" / "x.json";
  CHECK_THROWS_WITH(save_schedule(ring4(), nowhere), Catch::Contains(nowhere.string()));
}

TEST_CASE("loading a structurally inconsistent schedule file names the file and the problem", "[json]") {
  json document = schedule_to_json(ring4());
  document["transfers"][3]["dst"] = 9;
  TempFile file("collsim_bad_rank");
  write_text(file.path(), document.dump());
  try {
    (void)load_schedule(file.path());
    FAIL("a schedule naming rank 9 of 4 loaded");
  } catch (const Error& e) {
    const std::string message = e.what();
    INFO(message);
    CHECK(message.find(file.path().string()) != std::string::npos);
    CHECK(message.find("rank 9") != std::string::npos);
    CHECK(message.find('\n') == std::string::npos);
  }
}

TEST_CASE("schedule JSON without a transfers array is refused", "[json]") {
  json document = schedule_to_json(ring4());
  document.erase("transfers");
  require_refused(document, "'transfers'");
  document["transfers"] = json::object();
  require_refused(document, "transfers must be an array");
}

TEST_CASE("schedule JSON whose dependency names a nonexistent transfer is refused", "[json]") {
  json document = schedule_to_json(ring4());
  document["transfers"][5]["deps"].push_back(999);
  require_refused(document, "does not exist");
}

TEST_CASE("schedule JSON with a forward dependency that closes a cycle is refused", "[json]") {
  json document = schedule_to_json(ring4());
  // Transfer 4 (step 1) waits for a step-0 transfer; make that one wait for transfer 4.
  const std::uint32_t earlier = document["transfers"][4]["deps"][0].get<std::uint32_t>();
  REQUIRE(earlier < 4);
  document["transfers"][earlier]["deps"].push_back(4);
  require_refused(document, "cycle");
}

TEST_CASE("schedule JSON with a transfer depending on itself is refused as a cycle", "[json]") {
  json document = schedule_to_json(ring4());
  document["transfers"][6]["deps"].push_back(6);
  require_refused(document, "cycle");
}

TEST_CASE("schedule JSON naming a rank outside the schedule is refused", "[json]") {
  json document = schedule_to_json(ring4());
  document["transfers"][0]["src"] = 4;
  require_refused(document, "rank 4");
}

TEST_CASE("schedule JSON naming a chunk id out of range is refused", "[json]") {
  json document = schedule_to_json(ring4());
  const std::size_t chunks = document["chunks"].size();
  document["transfers"][2]["dst_chunk"] = chunks;
  require_refused(document, "chunk " + std::to_string(chunks));
}

TEST_CASE("schedule JSON with the wrong format name or version is refused", "[json]") {
  json document = schedule_to_json(ring4());
  document["format"] = "some-other-format";
  require_refused(document, "format");
  document = schedule_to_json(ring4());
  document["version"] = 2;
  require_refused(document, "version");
  require_refused(json::array(), "not an object");
}

TEST_CASE("schedule JSON with a negative number is refused", "[json]") {
  json document = schedule_to_json(ring4());
  document["bytes"] = -8;
  require_refused(document, "bytes must be a whole number");
  document = schedule_to_json(ring4());
  document["transfers"][1]["step"] = -1;
  require_refused(document, "transfers[1].step");
  document = schedule_to_json(ring4());
  document["transfers"][1]["deps"] = json::array({-1});
  require_refused(document, "not a transfer index");
}

TEST_CASE("schedule JSON with a string where a number belongs is refused", "[json]") {
  json document = schedule_to_json(ring4());
  document["ranks"] = "4";
  require_refused(document, "ranks must be a whole number");
  document = schedule_to_json(ring4());
  document["chunks"][0]["offset"] = "0";
  require_refused(document, "chunk.offset");
  document = schedule_to_json(ring4());
  document["transfers"][0]["deps"] = json::array({"0"});
  require_refused(document, "not a transfer index");
}

TEST_CASE("schedule JSON with a fractional number is refused", "[json]") {
  json document = schedule_to_json(ring4());
  document["transfers"][0]["src"] = 1.5;
  require_refused(document, "transfers[0].src");
}

TEST_CASE("schedule JSON moving a chunk into one of another size is refused", "[json]") {
  json document = schedule_to_json(ring4());
  // Ring chunks of 7 bytes over 4 ranks are 2, 2, 2 and 1 bytes long.
  REQUIRE(document["chunks"][0]["bytes"] == 2);
  REQUIRE(document["chunks"][3]["bytes"] == 1);
  document["transfers"][0]["src_chunk"] = 0;
  document["transfers"][0]["dst_chunk"] = 3;
  require_refused(document, "bytes) into chunk");
}

TEST_CASE("schedule JSON with a chunk beyond the address space is refused", "[json]") {
  json document = schedule_to_json(ring4());
  document["chunks"].push_back({{"offset", 6}, {"bytes", 2}});
  require_refused(document, "outside");
}

TEST_CASE("schedule JSON with an unknown op or collective is refused", "[json]") {
  json document = schedule_to_json(ring4());
  document["transfers"][0]["op"] = "sum";
  require_refused(document, "'sum'");
  document = schedule_to_json(ring4());
  document["collective"] = "alltoallv";
  require_refused(document, "'alltoallv'");
}

TEST_CASE("schedule JSON whose root is not a rank is refused", "[json]") {
  json document = schedule_to_json(ring4());
  document["root"] = 4;
  require_refused(document, "root 4");
}

TEST_CASE("schedule JSON whose bytes and scratch overflow is refused", "[json]") {
  json document = schedule_to_json(ring4());
  document["scratch_bytes"] = std::numeric_limits<std::uint64_t>::max();
  require_refused(document, "overflow");
}
