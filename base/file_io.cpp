// base/file_io.cpp — whole-file reads and writes with one-line errors.
#include "base/file_io.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "base/error.hpp"

namespace collsim {

std::string system_reason() { return std::strerror(errno); }

std::string read_text_file(const std::filesystem::path& path, std::string_view what, std::uint64_t max_bytes) {
  auto fail = [&](const std::string& why) { return Error(fmt::format("cannot read {} '{}': {}", what, path.string(), why)); };
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw fail("it is a directory, not a file");
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) throw fail(system_reason());
  std::string text;
  char buffer[1 << 16];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, file)) > 0) {
    text.append(buffer, n);
    if (text.size() > max_bytes) {
      std::fclose(file);
      throw fail(fmt::format("larger than {} bytes", max_bytes));
    }
  }
  const bool failed = std::ferror(file) != 0;
  const std::string reason = failed ? system_reason() : "";
  std::fclose(file);
  if (failed) throw fail(reason);
  return text;
}

void write_text_file(const std::filesystem::path& path, std::string_view text, std::string_view what) {
  auto fail = [&](const std::string& why) { return Error(fmt::format("cannot write {} '{}': {}", what, path.string(), why)); };
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw fail("it is a directory");
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) throw fail(system_reason());
  const bool written = std::fwrite(text.data(), 1, text.size(), file) == text.size() && std::fflush(file) == 0;
  const std::string reason = written ? "" : system_reason();
  if (std::fclose(file) != 0 && written) throw fail(system_reason());
  if (!written) throw fail(reason);
}

}  // namespace collsim
