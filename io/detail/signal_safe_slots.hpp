// SignalSafeSlots: a fixed table of entries that a signal handler may read while other threads
// add and remove them (the temporary outputs to unlink, the mapped inputs a SIGBUS may hit); and
// reraise_with_default_action, the way such a handler ends.
//
// add() and remove() may be called from any thread; for_each() only reads atomics and the entries
// behind them, so it is async-signal-safe. No allocation: the table is its own storage.
//
// @code
//   SignalSafeSlots<Temporary, 256> temporaries;
//   const int slot = temporaries.add(entry);        // -1 when full
//   temporaries.for_each([](const Temporary& t) { ::unlink(t.path); });   // in the handler
//   temporaries.remove(slot);
// @endcode
#pragma once

#include <atomic>
#include <csignal>
#include <mutex>

namespace gpp::io::detail {

template <typename Entry, int Size>
class SignalSafeSlots {
 public:
  /// The slot now holding a copy of `entry`, or -1 when every slot is taken.
  int add(const Entry& entry) {
    const std::lock_guard lock(mutex_);
    for (int i = 0; i < Size; ++i) {
      if (used_[i].load(std::memory_order_relaxed)) continue;
      entries_[i] = entry;
      used_[i].store(true, std::memory_order_release);
      return i;
    }
    return -1;
  }

  /// Frees `slot` (ignored when -1).
  void remove(int slot) {
    if (slot >= 0) used_[slot].store(false, std::memory_order_release);
  }

  /// Calls `visit(entry)` for every entry in use; async-signal-safe.
  template <typename Visit>
  void for_each(Visit&& visit) const {
    for (int i = 0; i < Size; ++i) {
      if (used_[i].load(std::memory_order_acquire)) visit(entries_[i]);
    }
  }

 private:
  std::mutex mutex_;
  std::atomic<bool> used_[Size] = {};
  Entry entries_[Size] = {};
};

/// From a signal handler: restores the signal's default action and raises it again, so that it
/// ends the process as it would have (delivered once the handler returns). Async-signal-safe.
inline void reraise_with_default_action(int signal_number) {
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  sigaction(signal_number, &default_action, nullptr);
  raise(signal_number);
}

}  // namespace gpp::io::detail
