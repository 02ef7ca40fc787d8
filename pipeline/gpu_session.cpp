// GpuSession: the device's choice, start, and the BGZF block codecs lent to readers and writers
// (see gpu_session.hpp).
#include "pipeline/gpu_session.hpp"

#include <chrono>
#include <functional>
#include <mutex>
#include <vector>

#include "core/error.hpp"
#include "pipeline/memory_budget.hpp"

namespace gpp::pipeline {

namespace {

// A reader's interface to the decoder that `get` returns (called for each part).
io::InflateOffload forward_to(const std::function<kernels::BlockInflater&()>& get) {
  return {.submit =
              [get](const io::InflateOffload::Part& part) {
                get().submit({.data = part.data,
                              .in_offsets = part.in_offsets,
                              .in_sizes = part.in_sizes,
                              .count = part.count,
                              .out_sizes = part.out_sizes,
                              .crcs = part.crcs});
              },
          .land =
              [get](std::uint8_t* out, const std::uint64_t* out_offsets,
                    const io::InflateOffload::Check& check) {
                return get().land(out, out_offsets, check);
              },
          .ready = [get] { return get().ready(); },
          .max_blocks = kernels::BlockInflater::kPartBlocks,
          .max_stream_bytes = kernels::BlockInflater::kPartStreamBytes};
}

// The codecs of sessions that ended, left to the driver: it releases their page-locked and device
// buffers when the process ends, where freeing them one by one on the way out costs time. Kept
// reachable here, so that they are not taken for leaks.
void park_for_exit(void* codec) {
  static std::mutex mutex;
  static auto* const parked = new std::vector<void*>;
  const std::lock_guard lock(mutex);
  parked->push_back(codec);
}

bool is_ready(const std::shared_future<kernels::Backend>& future) {
  return future.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

}  // namespace

io::InflateOffload reader_inflater(kernels::BlockInflater& inflater) {
  io::InflateOffload lent =
      forward_to([&inflater]() -> kernels::BlockInflater& { return inflater; });
  lent.in_flight = inflater.in_flight();
  return lent;
}

GpuSession::GpuSession(const CommonOptions& options) : options_(options) {}

GpuSession::~GpuSession() {
  // The process is ending: an error nobody used is moot. Each wait stands alone, so that one
  // failing does not skip the others.
  const auto quietly = [](const auto& wait) {
    try {
      wait();
    } catch (...) {
    }
  };
  std::shared_future<kernels::Backend> started;
  std::shared_future<void> making;
  {
    const std::lock_guard lock(start_mutex_);
    started = started_;
  }
  quietly([&] {
    if (started.valid()) started.wait();
  });
  quietly([&] {
    const std::lock_guard lock(deflater_mutex_);
    if (deflater_ != nullptr) deflater_->wait_ready();
  });
  {
    const std::lock_guard lock(inflater_mutex_);
    making = making_inflater_;
  }
  quietly([&] {
    if (making.valid()) making.wait();  // it takes the lock to finish
  });
  quietly([&] {
    const std::lock_guard lock(inflater_mutex_);
    if (inflater_ != nullptr) inflater_->wait_ready();
  });
  if (deflater_ != nullptr) park_for_exit(deflater_);
  if (inflater_ != nullptr) park_for_exit(inflater_);
}

std::shared_future<kernels::Backend> GpuSession::backend_choice() {
  const std::lock_guard lock(start_mutex_);
  if (!choice_.valid()) {
    choice_ = std::async(std::launch::async, [this] { return choose_backend(options_); }).share();
  }
  return choice_;
}

void GpuSession::start(bool bam_output) {
  const std::shared_future<kernels::Backend> choice = backend_choice();
  {
    const std::lock_guard lock(start_mutex_);
    if (started_.valid()) return;
    started_ = std::async(std::launch::async, [this, choice, bam_output] {
                 const kernels::Backend backend = choice.get();
                 kernels::initialize_device(backend);
                 if (bam_output) prepare_output_compression();
                 return backend;
               }).share();
  }
  if (!kernels::gpu_device_nodes_present()) started_backend();  // a bad --device fails here
}

kernels::Backend GpuSession::started_backend() {
  std::shared_future<kernels::Backend> started;
  {
    const std::lock_guard lock(start_mutex_);
    started = started_;
  }
  return started.valid() ? started.get() : backend();
}

void GpuSession::prepare_output_compression() {
  if (!options_.gpu_write) return;
  const kernels::Backend backend = this->backend();
  const std::lock_guard lock(deflater_mutex_);
  if (deflater_ == nullptr)
    deflater_ = new kernels::BlockDeflater(backend, encoder_host_bytes(memory_limit(options_)));
}

std::shared_ptr<kernels::BlockDeflater> GpuSession::borrow_block_deflater() {
  prepare_output_compression();
  const kernels::Backend backend = this->backend();
  const std::lock_guard lock(deflater_mutex_);
  if (deflater_lent_)
    return std::make_shared<kernels::BlockDeflater>(backend,
                                                    encoder_host_bytes(memory_limit(options_)));
  deflater_lent_ = true;
  return std::shared_ptr<kernels::BlockDeflater>(deflater_, [this](kernels::BlockDeflater*) {
    const std::lock_guard returning(deflater_mutex_);
    deflater_lent_ = false;
  });
}

io::InflateOffload GpuSession::inflate_offload() {
  if (!options_.gpu_read ||
      kernels::parse_device_choice(options_.device) == kernels::DeviceChoice::kCpu)
    return {};
  const std::shared_future<kernels::Backend> choice = backend_choice();
  if ((is_ready(choice) || !kernels::gpu_device_nodes_present()) &&
      choice.get() != kernels::Backend::kGpu)
    return {};
  // Its page-locked buffers are set aside from the memory budget (memory_budget.hpp).
  const std::size_t parts = static_cast<std::size_t>(
      decoder_host_bytes(memory_limit(options_)) / (2 * kernels::BlockInflater::kPartStreamBytes));
  if (parts < 2) return {};
  {
    const std::lock_guard lock(inflater_mutex_);
    if (inflater_lent_) return {};
    if (!making_inflater_.valid()) {
      making_inflater_ = std::async(std::launch::async, [this, choice, parts] {
                           try {
                             if (choice.get() != kernels::Backend::kGpu) return;
                             auto* made = new kernels::BlockInflater(kernels::Backend::kGpu, parts);
                             const std::lock_guard made_lock(inflater_mutex_);
                             inflater_ = made;
                           } catch (...) {  // no decoder: the reading stays on the CPU (or
                           }                // stops, see ready)
                         }).share();
    }
    inflater_lent_ = true;
  }
  const std::shared_ptr<void> lease(nullptr, [this](void*) {
    const std::lock_guard returning(inflater_mutex_);
    inflater_lent_ = false;
  });
  // Parts go in only once ready() has said yes: by then the decoder exists and stays.
  io::InflateOffload lent =
      forward_to([this, lease]() -> kernels::BlockInflater& { return *inflater_; });
  lent.ready = [this, choice] {
    if (is_ready(choice)) choice.get();  // rethrows a failed choice
    const std::lock_guard ready_lock(inflater_mutex_);
    return inflater_ != nullptr && inflater_->ready();
  };
  lent.in_flight = kernels::BlockInflater::gpu_parts_in_flight(parts);
  return lent;
}

std::shared_ptr<SharedInflater> GpuSession::share_inflater() {
  io::InflateOffload lent = inflate_offload();
  if (!lent) return nullptr;
  std::shared_future<void> making;
  {
    const std::lock_guard lock(inflater_mutex_);
    making = making_inflater_;
  }
  making.wait();
  const std::lock_guard lock(inflater_mutex_);
  if (inflater_ == nullptr) return nullptr;  // lent goes, and the loan with it
  // The loan is held by `lent`'s functions: kept until the shared decoder and its clients go.
  return std::make_shared<SharedInflater>(*inflater_,
                                          std::make_shared<io::InflateOffload>(std::move(lent)));
}

kernels::GpuSeconds GpuSession::deflater_seconds() {
  const std::lock_guard lock(deflater_mutex_);
  return deflater_ != nullptr ? deflater_->gpu_seconds() : kernels::GpuSeconds{};
}

kernels::GpuSeconds GpuSession::inflater_seconds() {
  const std::lock_guard lock(inflater_mutex_);
  return inflater_ != nullptr ? inflater_->gpu_seconds() : kernels::GpuSeconds{};
}

GpuSession& gpu_session(const CommonOptions& options) {
  if (options.gpu == nullptr) throw Error("internal error: the command runs without a GPU session");
  return *options.gpu;
}

}  // namespace gpp::pipeline
