#include "io/mapped_input.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <mutex>

#include "io/detail/signal_safe_slots.hpp"
#include "io/output_file.hpp"

namespace gpp::io {

namespace {

// The mappings in use, for the SIGBUS handler (only async-signal-safe calls from there).
constexpr std::size_t kPathBytes = 4096;
struct Mapping {
  std::uintptr_t begin = 0;
  std::uintptr_t end = 0;
  char path[kPathBytes] = {};
};
detail::SignalSafeSlots<Mapping, 64> mappings;

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
  mappings.for_each([address](const Mapping& mapping) {
    if (mapping.begin <= address && address < mapping.end) {
      write_all("gpu-pipeline: error: ");
      write_all(mapping.path);
      write_all(": the file was truncated while being read\n");
      remove_temporaries_now();
      ::_exit(1);
    }
  });
  detail::reraise_with_default_action(signal_number);  // not one of ours
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
  Mapping mapping;
  mapping.begin = reinterpret_cast<std::uintptr_t>(data);
  mapping.end = mapping.begin + size;
  std::memcpy(mapping.path, path.c_str(), path.size() + 1);
  return mappings.add(mapping);
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

void MappedInput::release_before(std::uint64_t offset) {
  constexpr std::uint64_t kStep = 1 << 20;  // a multiple of every page size
  const std::uint64_t end = std::min(offset, size_) / kStep * kStep;
  if (data_ == nullptr || end <= released_) return;
  madvise(const_cast<std::uint8_t*>(data_) + released_, end - released_, MADV_DONTNEED);
  released_ = end;
}

MappedInput::~MappedInput() {
  mappings.remove(slot_);
  if (data_ != nullptr) munmap(const_cast<std::uint8_t*>(data_), size_);
}

}  // namespace gpp::io
