// base/file_io.hpp — reading and writing whole text files with errors people can act
// on: every failure (missing, a directory, no permission, disk full, an unwritable folder)
// is an Error "cannot read|write <what> 'PATH': <reason>". Every file collsim reads or
// writes goes through here (or, for streams, checks the same way).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace collsim {

// `what` names the file's role: "cluster config", "schedule", "SVG". Refuses files larger
// than `max_bytes` (a schedule or config that big is not one collsim wrote).
std::string read_text_file(const std::filesystem::path& path, std::string_view what,
                           std::uint64_t max_bytes = std::uint64_t(1) << 30);
void write_text_file(const std::filesystem::path& path, std::string_view text, std::string_view what);

// The reason of the last failed system call, as strerror words ("No space left on device").
std::string system_reason();

}  // namespace collsim
