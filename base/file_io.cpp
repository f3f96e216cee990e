// base/file_io.cpp — whole-file reads with bounds and writes through AtomicFile, with one-line errors.
#include "base/file_io.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "base/atomic_file.hpp"
#include "base/error.hpp"

namespace collsim {

std::string system_reason() { return std::strerror(errno); }

namespace {

// How long a pipe may stay silent while collsim reads it (a writer that never writes).
constexpr int kPipeSilence_ms = 30000;

// What may be read: a regular file (its size checked before reading), or a pipe (read with
// the same bound; opened without blocking, so a FIFO nobody writes reads as empty).
void check_readable_kind(const struct stat& st, std::uint64_t max_bytes, const auto& fail) {
  if (S_ISDIR(st.st_mode)) throw fail("it is a directory, not a file");
  if (S_ISREG(st.st_mode)) {
    if (std::uint64_t(st.st_size) > max_bytes)
      throw fail(fmt::format("{} bytes, more than the {} bytes allowed", st.st_size, max_bytes));
    return;
  }
  if (S_ISFIFO(st.st_mode)) return;
  throw fail(S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "it is a device, not a file (give a file)"
                                                        : "it is not a regular file (give a file)");
}

}  // namespace

std::string read_text_file(const std::filesystem::path& path, std::string_view what, std::uint64_t max_bytes) {
  auto fail = [&](const std::string& why) { return Error(fmt::format("cannot read {} '{}': {}", what, path.string(), why)); };
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw fail(system_reason());
  struct Closer { int fd; ~Closer() { close(fd); } } closer{fd};
  struct stat st {};
  if (fstat(fd, &st) != 0) throw fail(system_reason());
  check_readable_kind(st, max_bytes, fail);
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {  // a pipe whose writer has not written yet
      pollfd wait{fd, POLLIN, 0};
      if (poll(&wait, 1, kPipeSilence_ms) == 0)
        throw fail(fmt::format("nothing arrived for {} s (a pipe nobody writes?)", kPipeSilence_ms / 1000));
      continue;
    }
    if (n < 0) throw fail(system_reason());
    text.append(buffer, std::size_t(n));
    if (text.size() > max_bytes) throw fail(fmt::format("more than the {} bytes allowed", max_bytes));
  }
  return text;
}

void write_text_file(const std::filesystem::path& path, std::string_view text, std::string_view what) {
  AtomicFile file(path, what);
  file.write(text);
  file.commit();
}

std::string system_file_field(const char* path, const std::string& key, char sep) {
  std::ifstream file(path);
  std::string line;
  while (std::getline(file, line)) {
    if (line.rfind(key, 0) != 0) continue;
    std::string value = line.substr(line.find(sep) + 1);
    value.erase(0, value.find_first_not_of(" \t\""));
    while (!value.empty() && (value.back() == '"' || value.back() == ' ')) value.pop_back();
    return value;
  }
  return "unknown";
}

}  // namespace collsim
