// ThreadPool: one pool of (de)compression threads that readers and writers share, so that
// decompressing the input and compressing the output overlap on the same cores (as samtools
// view -@ does) instead of each file holding its own threads.
#pragma once

#include <memory>

namespace gpp::io {

class ThreadPool {
 public:
  /// Starts `threads` worker threads (at least 1).
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  /// The HTSlib htsThreadPool* (io/ internal use).
  void* native() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace gpp::io
