// A file the user asked mgsim to write (a trace, a report, a calibrated hardware file), written
// safely: opened before the work so that a path that cannot be written fails at once (bad input,
// exit 2); written to `path`.partial and renamed over `path` only when complete; every write
// error reported (OutputFailed, exit 4, after the results went to stdout); and the .partial
// removed when the run fails or is interrupted (SIGINT, SIGTERM, SIGHUP), so nothing half-written
// is left behind. A device or a pipe (/dev/stdout, /dev/full) is written in place.
#pragma once

#include <fstream>
#include <string>

namespace mgsim::cli {

class OutputFile {
 public:
  // What an existing file of that name becomes before the work: `keep` it until the new one
  // replaces it (a document that is read, then rewritten), or `remove` it at once (an output
  // such as a trace: an interrupted run must not leave an older one that looks current).
  enum class Older { keep, remove };
  // `what` names the file in messages ("trace", "calibrated hardware file").
  OutputFile(std::string path, std::string what, Older older);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();

  std::ostream& stream() { return out_; }
  // Flushes, closes and renames into place; OutputFailed on any error.
  void commit();

 private:
  [[noreturn]] void fail_open(const std::string& why) const;
  [[noreturn]] void fail_write(const std::string& why) const;

  std::string path_, what_, writing_;
  bool in_place_ = false, done_ = false;
  int slot_ = -1;  // in the interrupt handler's list of .partial files
  std::ofstream out_;
};

}  // namespace mgsim::cli
