#include "cli/output_file.hpp"

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>
#include <unistd.h>

#include "cli/commands.hpp"
#include "sim/config.hpp"

namespace mgsim::cli {
namespace {

// The .partial files being written, for the signal handler: fixed storage and unlink(), which is
// async-signal-safe. A command writes one or two outputs at a time.
constexpr int kSlots = 8;
constexpr std::size_t kPathBytes = 4096;
std::array<std::array<char, kPathBytes>, kSlots> g_partial{};
std::array<std::atomic<bool>, kSlots> g_used{};

extern "C" void remove_partials_and_die(int sig) {
  for (int i = 0; i < kSlots; ++i)
    if (g_used[static_cast<std::size_t>(i)].load())
      ::unlink(g_partial[static_cast<std::size_t>(i)].data());
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

int claim(const std::string& path) {
  static const bool installed = [] {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) std::signal(sig, remove_partials_and_die);
    return true;
  }();
  (void)installed;
  if (path.size() >= kPathBytes) return -1;
  for (int i = 0; i < kSlots; ++i) {
    auto& used = g_used[static_cast<std::size_t>(i)];
    if (used.load()) continue;
    std::memcpy(g_partial[static_cast<std::size_t>(i)].data(), path.c_str(), path.size() + 1);
    used.store(true);
    return i;
  }
  return -1;
}

void release(int slot) {
  if (slot >= 0) g_used[static_cast<std::size_t>(slot)].store(false);
}

}  // namespace

OutputFile::OutputFile(std::string path, std::string what, Older older)
    : path_(std::move(path)), what_(std::move(what)) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path_, ec);
  if (fs::is_directory(st)) fail_open("it is a folder");
  in_place_ = fs::exists(st) && !fs::is_regular_file(st);
  if (in_place_) {
    writing_ = path_;
  } else {
    if (older == Older::remove && fs::exists(st) && !fs::remove(path_, ec)) fail_open(ec.message());
    writing_ = path_ + ".partial";
    slot_ = claim(writing_);
  }
  out_.open(writing_, std::ios::binary | std::ios::trunc);
  if (!out_) {
    const std::string why = std::strerror(errno);
    release(slot_);
    fail_open(why);
  }
}

OutputFile::~OutputFile() {
  if (!done_ && !in_place_) {
    out_.close();
    std::error_code ec;
    std::filesystem::remove(writing_, ec);
  }
  release(slot_);
}

void OutputFile::commit() {
  out_.flush();
  out_.close();
  if (out_.fail()) fail_write("the write failed (is the disk full?)");
  if (!in_place_) {
    std::error_code ec;
    std::filesystem::rename(writing_, path_, ec);
    if (ec) fail_write(ec.message());
  }
  done_ = true;
}

void OutputFile::fail_open(const std::string& why) const {
  throw sim::ConfigError({path_, 0, 0}, fmt::format("cannot write the {} file: {}", what_, why));
}

void OutputFile::fail_write(const std::string& why) const {
  throw OutputFailed(fmt::format("{}: error: the {} was not written: {}", path_, what_, why));
}

}  // namespace mgsim::cli
