// base/file_io.hpp — reading and writing whole text files with errors people can act
// on: every failure (missing, a directory, no permission, disk full, an unwritable folder)
// is an Error "cannot read|write <what> 'PATH': <reason>". Every file collsim reads or
// writes goes through here (streamed outputs through base/atomic_file.hpp). Reads refuse
// devices and files over their bound before reading them; writes are atomic.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace collsim {

// `what` names the file's role: "cluster config", "schedule", "SVG". Refuses files larger
// than `max_bytes` (a schedule or config that big is not one collsim wrote), devices
// (/dev/zero) and folders; reads a pipe or FIFO up to the same bound without blocking on
// one that has no writer (it reads as empty).
std::string read_text_file(const std::filesystem::path& path, std::string_view what,
                           std::uint64_t max_bytes = std::uint64_t(1) << 30);
// Atomic: a temporary file beside `path`, renamed over it once fully written (AtomicFile).
void write_text_file(const std::filesystem::path& path, std::string_view text, std::string_view what);

// The reason of the last failed system call, as strerror words ("No space left on device").
std::string system_reason();

// The value of "key<sep>value" on the first line of a system file (/proc/meminfo, /etc/os-release)
// that starts with `key`, blanks and quotes trimmed; "unknown" where there is none (or no file).
std::string system_file_field(const char* path, const std::string& key, char sep);

}  // namespace collsim
