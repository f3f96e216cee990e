// tests/base/test_atomic_file.cpp — outputs are all old or all new: a writer that fails or is
// dropped before commit leaves the old file as it was and no temporary file; a report folder
// is replaced as a whole; devices are written in place. Full and read-only file systems:
// tests/cli/faults.sh.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/atomic_file.hpp"
#include "base/error.hpp"
#include "base/file_io.hpp"

using namespace collsim;
namespace fs = std::filesystem;

namespace {

struct Folder {
  Folder() {
    std::string pattern = (fs::temp_directory_path() / "collsim-test-atomic-XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path = pattern;
  }
  ~Folder() {
    std::error_code ignored;
    fs::permissions(path, fs::perms::owner_all, fs::perm_options::add, ignored);
    fs::remove_all(path, ignored);
  }
  std::size_t entries() const { return std::size_t(std::distance(fs::directory_iterator(path), fs::directory_iterator())); }
  fs::path path;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("a committed file replaces the old one, an uncommitted one leaves it and no temporary file") {
  Folder dir;
  const fs::path target = dir.path / "out.json";
  write_text_file(target, "old\n", "test file");
  {
    AtomicFile file(target, "test file");
    file.write("half of a new");
    REQUIRE(dir.entries() == 2);  // the target and the temporary file beside it
  }  // dropped: a refused or failed run
  REQUIRE(slurp(target) == "old\n");
  REQUIRE(dir.entries() == 1);
  AtomicFile file(target, "test file");
  file.write(std::string(3 << 20, 'x'));  // past the block size: written as it goes
  file.commit();
  REQUIRE(fs::file_size(target) == std::uintmax_t(3 << 20));
  REQUIRE(dir.entries() == 1);
}

TEST_CASE("a replaced file keeps its permissions, a new one gets the umask's") {
  Folder dir;
  const fs::path target = dir.path / "kept.yaml";
  write_text_file(target, "a\n", "test file");
  chmod(target.c_str(), 0640);
  write_text_file(target, "b\n", "test file");
  struct stat st {};
  REQUIRE(stat(target.c_str(), &st) == 0);
  REQUIRE((st.st_mode & 07777) == 0640);
}

TEST_CASE("a full device, a missing folder and a folder as target are one Error each, naming the file") {
  Folder dir;
  REQUIRE_THROWS_WITH(write_text_file("/dev/full", "x", "schedule"),
                      "cannot write schedule '/dev/full': No space left on device");
  REQUIRE_THROWS_WITH(write_text_file(dir.path / "none" / "x.json", "x", "schedule"),
                      Catch::Contains("its folder") && Catch::Contains("does not exist"));
  REQUIRE_THROWS_WITH(write_text_file(dir.path, "x", "schedule"), Catch::Contains("it is a folder"));
  write_text_file("/dev/null", "x", "schedule");  // a device is written in place, not replaced
  REQUIRE(fs::is_character_file("/dev/null"));
}

TEST_CASE("a report folder is replaced as a whole, and one holding other files is refused") {
  Folder dir;
  const fs::path report = dir.path / "report";
  const std::vector<std::string> names{"a.csv", "b.md", "c.svg"};
  replace_folder(report, {{"a.csv", "1\n"}, {"b.md", "1\n"}, {"c.svg", "1\n"}}, names, "report folder");
  replace_folder(report, {{"a.csv", "2\n"}, {"b.md", "2\n"}}, names, "report folder");
  REQUIRE(slurp(report / "a.csv") == "2\n");
  REQUIRE(slurp(report / "b.md") == "2\n");
  REQUIRE(!fs::exists(report / "c.svg"));  // the old report's, not mixed into the new one
  REQUIRE(dir.entries() == 1);             // no staging folder left
  write_text_file(report / "notes.txt", "mine\n", "test file");
  REQUIRE_THROWS_WITH(replace_folder(report, {{"a.csv", "3\n"}}, names, "report folder"),
                      Catch::Contains("it holds 'notes.txt'"));
  REQUIRE(slurp(report / "a.csv") == "2\n");
}

TEST_CASE("reads refuse devices and oversized files before reading, and a FIFO without a writer reads as empty") {
  Folder dir;
  REQUIRE_THROWS_WITH(read_text_file("/dev/zero", "schedule"), Catch::Contains("it is a device"));
  const fs::path big = dir.path / "big.yaml";
  write_text_file(big, std::string(2000, '#'), "test file");
  REQUIRE_THROWS_WITH(read_text_file(big, "cluster config", 1000), Catch::Contains("2000 bytes, more than the 1000"));
  const fs::path fifo = dir.path / "fifo";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  REQUIRE(read_text_file(fifo, "schedule").empty());  // returns at once: nobody writes
}
