// base/atomic_file.cpp — temporary file, write, flush, fsync, rename (see the header).
#include "base/atomic_file.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/file_io.hpp"

namespace collsim {
namespace fs = std::filesystem;

namespace {

constexpr std::size_t kBlock = std::size_t(1) << 20;  // written in 1 MiB blocks

fs::path folder_of(const fs::path& target) {
  return target.has_parent_path() ? target.parent_path() : fs::path(".");
}

// /dev/stdout, /dev/null, /proc/self/fd/1: written in place (renaming over them would
// replace the device node, or the shell's redirection target behind its back).
bool written_in_place(const fs::path& target) {
  const std::string s = target.string();
  if (s.rfind("/dev/", 0) == 0 || s.rfind("/proc/", 0) == 0) return true;
  struct stat st {};
  return stat(target.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

// The temporary file's name beside the target: ".NAME.collsim-XXXXXX", NAME cut to fit NAME_MAX.
std::string temporary_pattern(const fs::path& target) {
  const std::string name = target.filename().string().substr(0, 200);
  return (folder_of(target) / fmt::format(".{}.collsim-XXXXXX", name)).string();
}

// Why a file cannot be created in `folder`, in words that say what to do.
std::string create_failure(const fs::path& folder, int error) {
  if (error == ENOENT) return fmt::format("its folder '{}' does not exist (create it first)", folder.string());
  if (error == ENOTDIR) return fmt::format("'{}' is not a folder", folder.string());
  if (error == EACCES || error == EPERM || error == EROFS)
    return fmt::format("cannot create a file in '{}': {} (write somewhere else)", folder.string(), std::strerror(error));
  return std::strerror(error);
}

void sync_folder(const fs::path& folder) {
  const int fd = open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  fsync(fd);  // the rename itself durable; a file system that cannot sync folders is fine
  close(fd);
}

// One step: the staged folder and the old one change places (the staged path then holds the
// old report). Where the file system cannot exchange, two renames, with the old folder moved
// aside first, so the target is missing for an instant but never mixed.
void swap_in(const fs::path& staging, const fs::path& target, const fs::path& folder, std::string_view what) {
  if (renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) == 0) return;
  auto fail = [&] {
    return Error(fmt::format("cannot write {} '{}': cannot swap in the new report: {}", what, folder.string(), system_reason()));
  };
  if (errno != EINVAL && errno != ENOSYS) throw fail();
  const fs::path aside = staging.string() + ".old";
  if (rename(target.c_str(), aside.c_str()) != 0) throw fail();
  if (rename(staging.c_str(), target.c_str()) != 0) {
    const Error error = fail();
    rename(aside.c_str(), target.c_str());
    throw error;
  }
  rename(aside.c_str(), staging.c_str());
}

}  // namespace

AtomicFile::AtomicFile(const fs::path& target, std::string_view what) : target_(target), what_(what) {
  std::error_code ec;
  if (target.empty()) fail("an empty file name");
  if (fs::is_directory(target, ec)) fail("it is a folder, not a file");
  if (written_in_place(target)) {
    in_place_ = true;
    fd_ = open(target.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd_ < 0) fail(system_reason());
    return;
  }
  // A link to a file: the file is replaced, the link kept.
  if (fs::is_symlink(target, ec) && fs::exists(target, ec)) target_ = fs::canonical(target, ec);
  // A read-only file stays read-only, as if it were opened for writing (the rename alone
  // needs only the folder's permission).
  if (access(target_.c_str(), F_OK) == 0 && access(target_.c_str(), W_OK) != 0) fail(system_reason());
  std::string pattern = temporary_pattern(target_);
  fd_ = mkostemp(pattern.data(), O_CLOEXEC);
  if (fd_ < 0) fail(create_failure(folder_of(target_), errno));
  temporary_ = pattern;
  cleanup_ = std::make_unique<RemoveOnInterrupt>(fs::absolute(temporary_, ec).string());
}

AtomicFile::~AtomicFile() { discard(); }

void AtomicFile::discard() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  if (!temporary_.empty()) unlink(temporary_.c_str());
  temporary_.clear();
  cleanup_.reset();
}

void AtomicFile::fail(const std::string& why) {
  const std::string target = target_.string();
  discard();
  throw Error(fmt::format("cannot write {} '{}': {}", what_, target, why));
}

void AtomicFile::write(std::string_view text) {
  if (fd_ < 0) throw Error(fmt::format("cannot write {} '{}': already closed", what_, target_.string()));
  buffer_.append(text);
  if (buffer_.size() >= kBlock) drain();
}

void AtomicFile::drain() {
  std::string_view rest = buffer_;
  while (!rest.empty()) {
    const ssize_t n = ::write(fd_, rest.data(), std::min(rest.size(), kBlock));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(system_reason());
    rest.remove_prefix(std::size_t(n));
  }
  buffer_.clear();
}

void AtomicFile::commit() {
  if (fd_ < 0) throw Error(fmt::format("cannot write {} '{}': already closed", what_, target_.string()));
  drain();
  if (in_place_) {
    const int fd = fd_;
    fd_ = -1;
    if (close(fd) != 0 && errno != EINTR) fail(system_reason());
    return;
  }
  if (fsync(fd_) != 0) fail(system_reason());
  struct stat old {};
  mode_t mode = 0;
  if (stat(target_.c_str(), &old) == 0) {
    mode = old.st_mode & 07777;  // a replaced file keeps its permissions
  } else {
    const mode_t mask = umask(0);
    umask(mask);
    mode = 0666 & ~mask;
  }
  if (fchmod(fd_, mode) != 0) fail(system_reason());
  const int fd = fd_;
  fd_ = -1;
  if (close(fd) != 0) fail(system_reason());
  if (rename(temporary_.c_str(), target_.c_str()) != 0) fail(system_reason());
  temporary_.clear();
  cleanup_.reset();
  sync_folder(folder_of(target_));
}

void check_writable(const fs::path& target, std::string_view what) {
  if (written_in_place(target)) return;  // a device: opening it early could block (a FIFO)
  const AtomicFile probe(target, what);  // dropped: the temporary file goes, the target stays
}

// ---- report folders -----------------------------------------------------------------------

void check_report_folder(const fs::path& folder, const std::vector<std::string>& names, std::string_view what) {
  auto fail = [&](const std::string& why) {
    return Error(fmt::format("cannot write {} '{}': {}", what, folder.string(), why));
  };
  std::error_code ec;
  if (fs::exists(folder, ec) && !fs::is_directory(folder, ec))
    throw fail("a file of that name is in the way (give -o a folder)");
  fs::create_directories(folder, ec);
  if (ec) throw fail(fmt::format("{} (give -o a folder you can write)", ec.message()));
  for (const fs::directory_entry& entry : fs::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    if (std::find(names.begin(), names.end(), name) == names.end())
      throw fail(fmt::format("it holds '{}', which is no report file; a report replaces the whole folder (give -o a new "
                             "or empty folder)",
                             name));
  }
  if (ec) throw fail(ec.message());
  if (access(folder.c_str(), W_OK) != 0 || access(folder_of(fs::absolute(folder, ec)).c_str(), W_OK) != 0)
    throw fail(fmt::format("no permission to replace it: {} (give -o a folder you can write)", system_reason()));
}

void replace_folder(const fs::path& folder, const std::vector<FolderFile>& files, const std::vector<std::string>& names,
                    std::string_view what) {
  check_report_folder(folder, names, what);
  std::error_code ec;
  const fs::path whole = fs::absolute(folder, ec).lexically_normal();
  const fs::path target = whole.has_filename() ? whole : whole.parent_path();
  std::string pattern = (folder_of(target) / fmt::format(".{}.collsim-XXXXXX", target.filename().string())).string();
  if (!mkdtemp(pattern.data()))
    throw Error(fmt::format("cannot write {} '{}': {}", what, folder.string(), create_failure(folder_of(target), errno)));
  const fs::path staging = pattern;
  const RemoveOnInterrupt cleanup(staging.string());
  struct stat old {};
  if (stat(target.c_str(), &old) == 0) chmod(staging.c_str(), old.st_mode & 07777);  // mkdtemp made it 0700
  try {
    for (const FolderFile& file : files) {
      AtomicFile out(staging / file.name, what);
      out.write(file.text);
      out.commit();
    }
    swap_in(staging, target, folder, what);
  } catch (...) {
    fs::remove_all(staging, ec);
    throw;
  }
  fs::remove_all(staging, ec);  // now the old report
  sync_folder(folder_of(target));
}

}  // namespace collsim
