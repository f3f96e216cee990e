// base/atomic_file.hpp — outputs that are all old or all new. A file is written to a
// temporary file in its target's folder (".NAME.collsim-XXXXXX"), flushed, synced and renamed
// over the target only when the writer commits; a folder of report files is written to a
// staging folder beside it and swapped in as a whole. A failure anywhere (a full disk, an
// unwritable folder, a run refused half-way, Ctrl-C) leaves the old file or folder as it
// was and removes the temporary one. Targets that are not regular files (/dev/stdout,
// /dev/null, a FIFO) are written in place: they hold nothing to lose.
// Every output collsim writes goes through here. Touches: the target and its folder.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/interrupt.hpp"

namespace collsim {

class AtomicFile {
 public:
  // `what` names the file's role in errors: "cannot write <what> 'PATH': <reason>".
  // Throws Error when the temporary file cannot be created (no folder, no permission).
  AtomicFile(const std::filesystem::path& target, std::string_view what);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();  // without commit(): the temporary file is removed, the target untouched

  void write(std::string_view text);  // throws Error (e.g. "No space left on device")
  void commit();                      // flush, fsync, rename over the target; throws Error

  const std::filesystem::path& target() const { return target_; }

 private:
  [[noreturn]] void fail(const std::string& why);
  void drain();  // writes out buffer_
  void discard();

  std::filesystem::path target_, temporary_;
  std::string what_;
  int fd_ = -1;
  bool in_place_ = false;  // a device or FIFO: written directly
  std::string buffer_;     // written in large blocks
  std::unique_ptr<RemoveOnInterrupt> cleanup_;
};

// Shows early that `target` can be written (its folder exists and takes a new file), by
// creating and removing the temporary file; throws the Error AtomicFile would. For outputs
// written after long work (calibrate -o), so a typo fails before the work, not after.
void check_writable(const std::filesystem::path& target, std::string_view what);

struct FolderFile {
  std::string name;  // a plain file name inside the folder
  std::string text;
};

// Refuses (Error) a folder that cannot be replaced by a report made of `names`: a file of
// that name in the way, or a folder holding anything else (a report never swaps away files
// it did not write). Creates the folder (and its parents) when missing, so an unwritable
// place fails before any work is done.
void check_report_folder(const std::filesystem::path& folder, const std::vector<std::string>& names,
                         std::string_view what);

// Writes `files` as the whole new content of `folder`: staged beside it, then swapped in
// with one rename, so the folder is always either the old report or the new one.
void replace_folder(const std::filesystem::path& folder, const std::vector<FolderFile>& files,
                    const std::vector<std::string>& names, std::string_view what);

}  // namespace collsim
