// gpp::Error: the one exception type user-facing code throws.
//
// The message is what the user reads after "gpu-pipeline: error: ", so it names the file or
// option at fault and what is wrong, e.g. "in.bam: truncated BGZF block".
#pragma once

#include <stdexcept>
#include <string>

namespace gpp {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What is wrong with one read's content ("read X: ..."), found where the file it came from is
/// not known: the command that read it puts the file's name in front (reads_named_by_input).
class ReadError : public Error {
 public:
  using Error::Error;
};

/// A device allocation that the GPU, or the --gpu-memory limit, cannot serve: work that sizes
/// itself to the device retries smaller or falls back to the CPU instead of failing.
class DeviceMemoryExhausted : public Error {
 public:
  using Error::Error;
};

}  // namespace gpp
