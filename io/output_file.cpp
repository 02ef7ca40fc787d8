#include "io/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>

#include "core/error.hpp"
#include "io/background_release.hpp"
#include "io/detail/signal_safe_slots.hpp"

namespace gpp::io {

namespace {

// Temporary files in progress, for the handler of SIGINT, SIGTERM and SIGHUP, which removes them
// before the signal ends the process (only async-signal-safe calls: unlink, sigaction, raise).
constexpr std::size_t kTemporaryPathBytes = 4096;
struct Temporary {
  char path[kTemporaryPathBytes] = {};
  bool directory = false;  ///< a directory made for the outputs: removed when left empty
};
detail::SignalSafeSlots<Temporary, 256> temporaries;

extern "C" void remove_temporaries_and_reraise(int signal_number) {
  remove_temporaries_now();
  detail::reraise_with_default_action(signal_number);
}

void install_signal_cleanup() {
  static std::once_flag installed;
  std::call_once(installed, [] {
    for (const int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction current {};
      sigaction(signal_number, nullptr, &current);
      if (current.sa_handler == SIG_IGN) continue;  // e.g. nohup: keep ignoring it
      struct sigaction action {};
      action.sa_handler = remove_temporaries_and_reraise;
      sigemptyset(&action.sa_mask);
      sigaction(signal_number, &action, nullptr);
    }
  });
}

/// The slot now holding `path`, or -1 (no room, or a path too long: left to the destructor).
int register_temporary(const std::string& path, bool directory = false) {
  install_signal_cleanup();
  if (path.size() >= kTemporaryPathBytes) return -1;
  Temporary temporary;
  std::memcpy(temporary.path, path.c_str(), path.size() + 1);
  temporary.directory = directory;
  return temporaries.add(temporary);
}

void unregister_temporary(int slot) { temporaries.remove(slot); }

std::string temp_name_for(const std::string& final_path) {
  const std::filesystem::path p(final_path);
  // Same directory (rename stays atomic), hidden, unique per process.
  std::string name = ".";
  name += p.filename().string();
  name += ".tmp";
  name += std::to_string(::getpid());
  return (p.parent_path() / name).string();
}
}  // namespace

void remove_temporaries_now() {
  temporaries.for_each([](const Temporary& temporary) {
    if (!temporary.directory) ::unlink(temporary.path);
  });
  // Then the output directories left empty: rmdir refuses the others; a round for each level of
  // nesting (a parent empties when its child goes).
  for (bool removed = true; removed;) {
    removed = false;
    temporaries.for_each([&removed](const Temporary& temporary) {
      if (temporary.directory && ::rmdir(temporary.path) == 0) removed = true;
    });
  }
}

OutputDirectories::OutputDirectories(std::vector<std::filesystem::path> created)
    : created_(std::move(created)) {
  for (const std::filesystem::path& dir : created_) {
    signal_slots_.push_back(register_temporary(dir.string(), /*directory=*/true));
  }
}

OutputDirectories::~OutputDirectories() {
  for (const int slot : signal_slots_) unregister_temporary(slot);
}

void OutputDirectories::remove_empty() const {
  for (const std::filesystem::path& dir : created_) {
    std::error_code ec;
    if (!std::filesystem::is_empty(dir, ec) || ec) return;
    std::filesystem::remove(dir, ec);
  }
}

bool is_streamed_output(const std::string& path) {
  // /dev/stdout, /dev/fd/3, /proc/self/fd/1: written in place even where they lead to a regular
  // file (a redirection), as `samtools view -o /dev/stdout` does; nothing is put beside them.
  if (path == "-" || path.starts_with("/dev/") || path.starts_with("/proc/")) return true;
  struct stat status {};
  // stat follows links: /dev/stdout is a link to the process's descriptor.
  if (::stat(path.c_str(), &status) != 0) return false;
  return S_ISFIFO(status.st_mode) || S_ISCHR(status.st_mode) || S_ISSOCK(status.st_mode);
}

std::string link_target(const std::string& path) {
  std::filesystem::path p(path);
  std::error_code ec;
  for (int hops = 0; hops < 40 && std::filesystem::is_symlink(p, ec); ++hops) {
    const std::filesystem::path target = std::filesystem::read_symlink(p, ec);
    if (ec) break;
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  return p.lexically_normal().string();
}

namespace {

/// Where a streamed output is opened: standard output for "-", else the path itself.
std::string stream_path(const std::string& path) { return path == "-" ? "/dev/stdout" : path; }

}  // namespace

OutputFile::OutputFile(std::string final_path)
    : streamed_(is_streamed_output(final_path)),
      final_path_(streamed_ ? std::move(final_path) : link_target(final_path)) {
  if (streamed_) {
    temp_path_ = stream_path(final_path_);
    return;
  }
  // An unnamed file in the output's directory (O_TMPFILE), written through its /proc path and
  // given its name only when complete: a process killed even by SIGKILL leaves nothing. Where
  // the file system cannot (or /proc is missing), a hidden temporary name, removed on error and
  // by the handler of SIGINT, SIGTERM and SIGHUP.
  std::filesystem::path dir = std::filesystem::path(final_path_).parent_path();
  if (dir.empty()) dir = ".";
  unnamed_fd_ = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0666);
  if (unnamed_fd_ >= 0) {
    temp_path_ = "/proc/self/fd/" + std::to_string(unnamed_fd_);
    if (::access(temp_path_.c_str(), W_OK) == 0) return;
    ::close(unnamed_fd_);
    unnamed_fd_ = -1;
  }
  temp_path_ = temp_name_for(final_path_);
  signal_slot_ = register_temporary(std::filesystem::absolute(temp_path_).string());
}

OutputFile::~OutputFile() {
  // An unnamed file vanishes with its descriptor; freeing its blocks may wait for the device.
  if (unnamed_fd_ >= 0) close_in_background(unnamed_fd_);
  if (!committed_ && !streamed_ && unnamed_fd_ < 0) std::remove(temp_path_.c_str());
  unregister_temporary(signal_slot_);
}

void OutputFile::commit() {
  if (streamed_) {  // written in place: nothing to move
    committed_ = true;
    return;
  }
  if (unnamed_fd_ >= 0) {
    // Named under the hidden temporary name for the instant before the rename (the rename
    // replaces an existing output atomically, which linking cannot).
    const std::string named = temp_name_for(final_path_);
    signal_slot_ = register_temporary(std::filesystem::absolute(named).string());
    ::unlink(named.c_str());
    if (::linkat(AT_FDCWD, temp_path_.c_str(), AT_FDCWD, named.c_str(), AT_SYMLINK_FOLLOW) != 0) {
      const std::string reason = std::strerror(errno);
      throw Error(final_path_ + ": cannot move the finished output into place (" + reason + ")");
    }
    ::close(unnamed_fd_);
    unnamed_fd_ = -1;
    temp_path_ = named;  // from here on as a named temporary: removed if the rename fails
  }
  if (std::rename(temp_path_.c_str(), final_path_.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    throw Error(final_path_ + ": cannot move the finished output into place (" + reason + ")");
  }
  committed_ = true;
  unregister_temporary(signal_slot_);
  signal_slot_ = -1;
}

void OutputFile::start_writeback() const {
  if (streamed_) return;
  const int fd = unnamed_fd_ >= 0 ? unnamed_fd_ : ::open(temp_path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  ::sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
  if (fd != unnamed_fd_) ::close(fd);
}

namespace {

/// The standard stream `path` names ("-", /dev/stdout, /dev/stderr, their /dev/fd and
/// /proc/self/fd names), or -1.
int standard_stream(const std::string& path) {
  if (path == "-" || path == "/dev/stdout" || path == "/dev/fd/1" || path == "/proc/self/fd/1") {
    return STDOUT_FILENO;
  }
  if (path == "/dev/stderr" || path == "/dev/fd/2" || path == "/proc/self/fd/2") {
    return STDERR_FILENO;
  }
  return -1;
}

/// Whether `path` is the regular file this process's descriptor `fd` writes or reads.
bool is_file_of_descriptor(const std::string& path, int fd) {
  struct stat stream {};
  struct stat file {};
  return ::fstat(fd, &stream) == 0 && S_ISREG(stream.st_mode) && ::stat(path.c_str(), &file) == 0 &&
         file.st_dev == stream.st_dev && file.st_ino == stream.st_ino;
}

}  // namespace

int open_output_descriptor(const std::string& path) {
  // A standard stream is written through a copy of its descriptor, as samtools writes "-":
  // opened again by its name, a regular file behind it would get an offset of its own (what the
  // shell or stderr wrote before or beside it overwritten, `>>` ignored) and be truncated.
  if (const int stream = standard_stream(path); stream >= 0) {
    return ::fcntl(stream, F_DUPFD_CLOEXEC, 0);
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) return -1;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && ::ftruncate(fd, 0) != 0) {
    const int error = errno;
    ::close(fd);
    errno = error;
    return -1;
  }
  return fd;
}

std::FILE* open_output_stream(const std::string& path) {
  const int fd = open_output_descriptor(path);
  if (fd < 0) return nullptr;
  std::FILE* file = ::fdopen(fd, "wb");
  if (file == nullptr) {
    const int error = errno;
    ::close(fd);
    errno = error;
  }
  return file;
}

void check_output_writable(const std::string& path) {
  if (is_streamed_output(path)) return;  // opened when written: its errors name it then
  std::filesystem::path dir = std::filesystem::path(link_target(path)).parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  const auto status = std::filesystem::status(dir, ec);
  if (ec || !std::filesystem::exists(status)) {
    throw Error(path + ": cannot write output (directory " + dir.string() + " does not exist)");
  }
  if (!std::filesystem::is_directory(status)) {
    throw Error(path + ": cannot write output (" + dir.string() + " is not a directory)");
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    throw Error(path + ": cannot write output (directory " + dir.string() + " is not writable)");
  }
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (std::filesystem::exists(a, ec) && std::filesystem::exists(b, ec)) {
    const bool equivalent = std::filesystem::equivalent(a, b, ec);
    if (!ec) return equivalent;
  }
  // Absolute first: weakly_canonical leaves a relative path of which nothing exists as it is
  // ("o.bam", where "./o.bam" becomes /dir/o.bam).
  const auto canonical_a = std::filesystem::weakly_canonical(std::filesystem::absolute(a, ec), ec);
  if (ec) return a == b;
  const auto canonical_b = std::filesystem::weakly_canonical(std::filesystem::absolute(b, ec), ec);
  if (ec) return a == b;
  return canonical_a == canonical_b;
}

bool is_standard_input(const std::string& path) {
  return is_file_of_descriptor(path, STDIN_FILENO);
}

namespace {

bool is_stream(const std::string& path) { return path.empty() || path == "-"; }

/// The files read beside an input that exist: its indexes (HTSlib's names: x.bam.bai, x.bai,
/// .csi, .crai, .tbi; a FASTA's .fai and .gzi) and a FASTA's dictionary (x.dict).
std::vector<std::string> existing_companions(const std::string& input) {
  std::vector<std::string> found;
  const std::string stem = std::filesystem::path(input).replace_extension().string();
  std::error_code ec;
  for (const std::string& candidate :
       {input + ".bai", input + ".csi", input + ".crai", input + ".tbi", input + ".fai",
        input + ".gzi", stem + ".bai", stem + ".csi", stem + ".crai", stem + ".dict"}) {
    if (std::filesystem::is_regular_file(candidate, ec)) found.push_back(candidate);
  }
  return found;
}

/// An output and the index files that may be written beside it, or removed as stale when it
/// replaces a file (AlignmentWriter: x.bam's x.bai, x.cram's x.crai too).
std::vector<std::string> written_with(const std::string& output) {
  std::vector<std::string> files = {output, output + ".bai", output + ".csi", output + ".crai",
                                    output + ".tbi"};
  const std::filesystem::path path(output);
  const std::string stem = (path.parent_path() / path.stem()).string();
  if (path.extension() == ".bam") files.push_back(stem + ".bai");
  if (path.extension() == ".cram") files.push_back(stem + ".crai");
  return files;
}

/// Whether `path` names this process's standard output ("-" or one of its device names).
bool is_standard_output(const std::string& path) { return standard_stream(path) == STDOUT_FILENO; }

}  // namespace

void check_outputs_distinct(const std::vector<std::string>& inputs,
                            const std::vector<std::string>& outputs) {
  const std::string* on_standard_output = nullptr;
  for (const std::string& output : outputs) {
    if (!is_standard_output(output)) continue;
    if (on_standard_output != nullptr) {
      throw Error(output + ": " + *on_standard_output +
                  " already writes to standard output; give one of them a file");
    }
    on_standard_output = &output;
  }
  // Standard output redirected to a file (`-O - > x`): no other output or input may be x.
  if (on_standard_output != nullptr) {
    std::vector<std::string> others = inputs;
    for (const std::string& output : outputs) {
      if (&output == on_standard_output || is_stream(output)) continue;
      const std::vector<std::string> written = written_with(output);
      others.insert(others.end(), written.begin(), written.end());
    }
    for (const std::string& other : others) {
      if (!is_stream(other) && is_file_of_descriptor(other, STDOUT_FILENO)) {
        throw Error(other + ": standard output, where " + *on_standard_output +
                    " writes, is this file; choose another name or redirection");
      }
    }
  }
  const bool reads_standard_input = std::find(inputs.begin(), inputs.end(), "-") != inputs.end();
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    if (is_stream(outputs[o])) continue;
    check_output_writable(outputs[o]);
    for (const std::string& written : written_with(outputs[o])) {
      std::error_code ec;
      if (std::filesystem::is_directory(written, ec)) {
        throw Error(outputs[o] + ": cannot write output (" + written + " is a directory)");
      }
      if (reads_standard_input && is_standard_input(written)) {
        throw Error(outputs[o] + ": writing it would overwrite " +
                    (written == outputs[o] ? std::string("the file") : written + ",") +
                    " standard input reads; choose another output name");
      }
    }
    for (const std::string& input : inputs) {
      if (is_stream(input)) continue;
      if (same_file(outputs[o], input)) {
        throw Error(outputs[o] + ": the output is the input " + input +
                    " (it would be overwritten); choose another output name");
      }
      for (const std::string& companion : existing_companions(input)) {
        for (const std::string& written : written_with(outputs[o])) {
          if (same_file(written, companion)) {
            throw Error(outputs[o] + ": writing it would overwrite " + companion +
                        ", which is read with the input " + input + "; choose another output name");
          }
        }
      }
      for (const std::string& written : written_with(outputs[o])) {
        if (written != outputs[o] && same_file(written, input)) {
          throw Error(outputs[o] + ": its index " + written + " would overwrite the input " +
                      input + "; choose another output name");
        }
      }
    }
    for (std::size_t other = o + 1; other < outputs.size(); ++other) {
      if (!is_stream(outputs[other]) && same_file(outputs[o], outputs[other])) {
        throw Error(outputs[o] + ": given as two outputs (" + outputs[other] +
                    "); each output needs its own file");
      }
    }
    // Nor may another output land on the index written beside this one.
    for (std::size_t other = 0; other < outputs.size(); ++other) {
      if (other == o || is_stream(outputs[other])) continue;
      for (const std::string& written : written_with(outputs[o])) {
        if (written != outputs[o] && same_file(written, outputs[other])) {
          throw Error(outputs[other] + ": the index " + written + " of the output " + outputs[o] +
                      " would replace it; choose another output name");
        }
      }
    }
  }
}

}  // namespace gpp::io
