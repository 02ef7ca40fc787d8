// TaskThread: one thread running the tasks given to it in order.
//
// A stage of a pipeline keeps its thread, and the thread-local buffers of what it calls, from
// batch to batch. The destructor runs what is still queued, then joins.
//
// @code
//   TaskThread writing;
//   std::future<void> written = writing.submit([&] { writer.write(batch); });
//   ...                         // the next batch is prepared meanwhile
//   written.get();              // rethrows what the task threw
// @endcode
#pragma once

#include <condition_variable>
#include <deque>
#include <future>
#include <mutex>
#include <thread>
#include <utility>

namespace gpp {

class TaskThread {
 public:
  TaskThread() : thread_([this] { run(); }) {}
  ~TaskThread() {
    {
      const std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    ready_.notify_one();
    thread_.join();
  }
  TaskThread(const TaskThread&) = delete;
  TaskThread& operator=(const TaskThread&) = delete;

  template <typename F>
  auto submit(F f) -> std::future<decltype(f())> {
    std::packaged_task<decltype(f())()> task(std::move(f));
    auto future = task.get_future();
    {
      const std::lock_guard lock(mutex_);
      tasks_.emplace_back([task = std::move(task)]() mutable { task(); });
    }
    ready_.notify_one();
    return future;
  }

 private:
  void run() {
    for (;;) {
      std::packaged_task<void()> task;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
        if (tasks_.empty()) return;
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::packaged_task<void()>> tasks_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts once the rest exists
};

}  // namespace gpp
