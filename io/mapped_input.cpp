#include "io/mapped_input.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>
#include <mutex>

#include "io/output_file.hpp"

namespace gpp::io {

namespace {

// The mappings in use, for the SIGBUS handler (only async-signal-safe calls from there).
constexpr int kMappingSlots = 64;
constexpr std::size_t kPathBytes = 4096;
struct MappingSlot {
  std::atomic<bool> used{false};
  std::uintptr_t begin = 0;
  std::uintptr_t end = 0;
  char path[kPathBytes] = {};
};
MappingSlot mapping_slots[kMappingSlots];

void write_all(const char* text) {
  std::size_t left = std::strlen(text);
  while (left > 0) {
    const ssize_t n = ::write(STDERR_FILENO, text, left);
    if (n <= 0) return;
    text += n;
    left -= static_cast<std::size_t>(n);
  }
}

extern "C" void report_truncated_input(int signal_number, siginfo_t* info, void*) {
  const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
  for (const MappingSlot& slot : mapping_slots) {
    if (slot.used.load(std::memory_order_acquire) && slot.begin <= address && address < slot.end) {
      write_all("gpu-pipeline: error: ");
      write_all(slot.path);
      write_all(": the file was truncated while being read\n");
      remove_temporaries_now();
      ::_exit(1);
    }
  }
  // Not one of ours: the default action, delivered as soon as the handler returns (the signal is
  // blocked until then).
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  sigaction(signal_number, &default_action, nullptr);
  raise(signal_number);
}

void install_sigbus_handler() {
  static std::once_flag installed;
  std::call_once(installed, [] {
    struct sigaction action {};
    action.sa_sigaction = report_truncated_input;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    sigaction(SIGBUS, &action, nullptr);
  });
}

/// The slot now holding the mapping, or -1 (no room or a path too long: a plain SIGBUS then).
int register_mapping(const void* data, std::uint64_t size, const std::string& path) {
  install_sigbus_handler();
  if (path.size() >= kPathBytes) return -1;
  static std::mutex mutex;
  const std::lock_guard lock(mutex);
  for (int i = 0; i < kMappingSlots; ++i) {
    MappingSlot& slot = mapping_slots[i];
    if (slot.used.load(std::memory_order_relaxed)) continue;
    slot.begin = reinterpret_cast<std::uintptr_t>(data);
    slot.end = slot.begin + size;
    std::memcpy(slot.path, path.c_str(), path.size() + 1);
    slot.used.store(true, std::memory_order_release);
    return i;
  }
  return -1;
}

}  // namespace

MappedInput::MappedInput(int fd, std::uint64_t size, const std::string& path) {
  if (size == 0) return;
  void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (map == MAP_FAILED) return;
  data_ = static_cast<const std::uint8_t*>(map);
  size_ = size;
  slot_ = register_mapping(data_, size_, path);
}

MappedInput::~MappedInput() {
  if (slot_ >= 0) mapping_slots[slot_].used.store(false, std::memory_order_release);
  if (data_ != nullptr) munmap(const_cast<std::uint8_t*>(data_), size_);
}

}  // namespace gpp::io
