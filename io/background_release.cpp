#include "io/background_release.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <utility>

#include "core/task_thread.hpp"

namespace gpp::io {

namespace {

// The releasing thread: started by the first release; what is still queued when the process's
// static objects go is run before it is joined.
TaskThread& releaser() {
  static TaskThread thread;
  return thread;
}

}  // namespace

void release_in_background(std::function<void()> release) {
  // Best effort: what a release throws stays in its discarded future (the space comes back when
  // the file goes).
  releaser().submit(std::move(release));
}

void close_in_background(int fd) {
  if (fd < 0) return;
  release_in_background([fd] { ::close(fd); });
}

void punch_hole_in_background(int fd, std::uint64_t from, std::uint64_t bytes) {
  if (bytes == 0) return;
  const int own = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (own < 0) return;
  release_in_background([own, from, bytes] {
    ::fallocate(own, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(from),
                static_cast<off_t>(bytes));
    ::close(own);
  });
}

void wait_for_background_releases() {
  releaser().submit([] {}).wait();  // run after everything handed over before
}

}  // namespace gpp::io
