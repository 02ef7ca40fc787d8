// OutputFile: an output written unnamed (or under a temporary name) and given its name only when
// complete.
//
// A failed run must leave no partial output: write to temp_path(), call commit() at the end.
// temp_path() is, where the file system allows, the /proc path of an unnamed file (O_TMPFILE) in
// the output's directory, which vanishes however the process ends, SIGKILL included; elsewhere a
// hidden temporary name, removed by the destructor of an uncommitted OutputFile and by SIGINT,
// SIGTERM or SIGHUP (a handler removes every temporary in progress, then lets the signal end the
// process).
#pragma once

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace gpp::io {

/// Whether `path` is written in place, not through a temporary file: "-" (standard output), a
/// path under /dev or /proc (/dev/stdout, /dev/fd/N), or an existing FIFO, character device or
/// socket, which a rename would replace instead of writing into.
bool is_streamed_output(const std::string& path);

/// The file `path` names once symbolic links are followed (up to 40), whether it exists or not:
/// an output given as a link is written to the link's target and the link is kept.
std::string link_target(const std::string& path);

class OutputFile {
 public:
  /// An output at `final_path`; a symbolic link is followed to its target, and a streamed output
  /// (is_streamed_output) is written in place: its temp_path() is the stream, commit() a no-op,
  /// and a failed run cannot take back what was already sent.
  explicit OutputFile(std::string final_path);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();

  const std::string& final_path() const { return final_path_; }
  const std::string& temp_path() const { return temp_path_; }
  bool streamed() const { return streamed_; }

  /// Renames the temporary file to the final path; throws gpp::Error on failure.
  void commit();

  /// Starts writing what the file holds to the disk, without waiting for it (a hint: nothing
  /// happens where it cannot). For a temporary file written whole while the disk has time and read
  /// back later: left to the kernel, such files pile up in the page cache until the kernel makes
  /// a later pass wait for the disk.
  void start_writeback() const;

 private:
  bool streamed_ = false;
  std::string final_path_;
  std::string temp_path_;
  int signal_slot_ = -1;  ///< its entry in the signal handler's list of temporaries
  int unnamed_fd_ = -1;   ///< the O_TMPFILE file written, until it is named
  bool committed_ = false;
};

/// Opens `path` (an OutputFile's temp_path(), or a stream) for writing from its start, as
/// fopen(path, "wb") does, but truncates only a file that holds something. ext4 marks a file
/// truncated as it is opened to be flushed when that descriptor closes (its auto_da_alloc rule for
/// files rewritten in place): the close would then wait until every byte written had reached the
/// disk (seconds for an output of gigabytes), and temporary files removed soon after would be
/// written to the disk first. An OutputFile's unnamed file exists, empty, before it is opened.
/// Returns null (errno set) when it cannot.
std::FILE* open_output_stream(const std::string& path);

/// open_output_stream's descriptor (-1, errno set, when it cannot), for HTSlib's hdopen.
int open_output_descriptor(const std::string& path);

/// Removes every temporary output in progress, then the directories made for the outputs that
/// are left empty (OutputDirectories). Async-signal-safe: for signal handlers that end the process
/// (the handler of SIGINT/SIGTERM/SIGHUP, mapped_input's of SIGBUS).
void remove_temporaries_now();

/// Directories a command made for its outputs (`run -o new/dir`), deepest first: while the object
/// lives, a SIGINT, SIGTERM or SIGHUP removes those it leaves empty; remove_empty() does the same
/// after an error. Nothing else of them is touched (rmdir refuses a directory that holds files).
class OutputDirectories {
 public:
  explicit OutputDirectories(std::vector<std::filesystem::path> created);
  ~OutputDirectories();
  OutputDirectories(const OutputDirectories&) = delete;
  OutputDirectories& operator=(const OutputDirectories&) = delete;

  /// Removes the directories left empty, deepest first.
  void remove_empty() const;

 private:
  std::vector<std::filesystem::path> created_;
  std::vector<int> signal_slots_;
};

/// Throws gpp::Error "<path>: cannot write output (<reason>)" unless the directory of `path`
/// exists and is writable, so a run fails before any work when its outputs cannot be written.
void check_output_writable(const std::string& path);

/// Whether two paths name the same file: the same inode when both exist, else the same absolute
/// path once the symbolic links of its existing part are resolved.
bool same_file(const std::string& a, const std::string& b);

/// Whether `path` is the regular file this process's standard input reads (`-I - < file`).
bool is_standard_input(const std::string& path);

/**
 * @brief Throws gpp::Error before any work when an output would replace an input or another
 * output of the same command: "<output>: the output is the input <input>" or "<a>: given as two
 * outputs". An output, or an index written beside it (.bai, .csi, .crai, .tbi), must not replace
 * an input either, nor the existing files read beside one (its index: .bai, .csi, .crai, .tbi,
 * .fai, .gzi; a FASTA's .dict), nor the file standard input reads when an input is "-". An
 * output or its index may not be an existing directory, and two outputs may not both be standard
 * output; every output's directory must be writable (check_output_writable). Paths are
 * compared as files (symbolic links resolved, equal inodes of existing files
 * found); empty paths and "-" are otherwise ignored.
 */
void check_outputs_distinct(const std::vector<std::string>& inputs,
                            const std::vector<std::string>& outputs);

}  // namespace gpp::io
