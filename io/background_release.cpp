#include "io/background_release.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>

namespace gpp::io {

namespace {

// The releasing thread and its queue; started by the first release, drained and joined as the
// process's static objects go.
class Releaser {
 public:
  ~Releaser() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

  void add(std::function<void()> release) {
    {
      std::lock_guard lock(mutex_);
      if (!thread_.joinable()) thread_ = std::thread([this] { work(); });
      queue_.push_back(std::move(release));
      ++added_;
    }
    changed_.notify_all();
  }

  void wait() {
    std::unique_lock lock(mutex_);
    const std::uint64_t target = added_;
    changed_.wait(lock, [&] { return done_ >= target; });
  }

 private:
  void work() {
    std::unique_lock lock(mutex_);
    for (;;) {
      changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing left
      std::function<void()> release = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      try {
        release();
      } catch (...) {  // giving space back is best effort: it comes back when the file goes
      }
      lock.lock();
      ++done_;
      changed_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::function<void()>> queue_;
  std::uint64_t added_ = 0;
  std::uint64_t done_ = 0;
  bool stopping_ = false;
  std::thread thread_;
};

Releaser& releaser() {
  static Releaser instance;
  return instance;
}

}  // namespace

void release_in_background(std::function<void()> release) { releaser().add(std::move(release)); }

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

void wait_for_background_releases() { releaser().wait(); }

}  // namespace gpp::io
