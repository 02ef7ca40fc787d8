// GpuSession: everything a command's run shares about the device — the choice of backend (probing
// the GPUs, made once), the GPU's start (its context, made beside the reading of the input), and
// the BGZF block encoder (--gpu-write) and decoder (GPU reading) that writers and readers borrow.
// One session per process, made by main (or a program that drives the commands) and reached
// through CommonOptions::gpu; nothing here is a process-wide static.
//
// @code
//   CommonOptions common;              // parsed from the command line
//   GpuSession gpu(common);
//   common.gpu = &gpu;
//   gpu.start(true);                   // the choice, the GPU's context, the BAM encoder
//   ...                                // open and read the input meanwhile
//   kernels::Backend backend = gpu.started_backend();
// @endcode
#pragma once

#include <future>
#include <memory>
#include <mutex>

#include "io/bam/inflate_offload.hpp"
#include "kernels/bgzf/bgzf_deflate.hpp"
#include "kernels/bgzf/bgzf_inflate.hpp"
#include "kernels/device/device.hpp"
#include "pipeline/common_options.hpp"
#include "pipeline/shared_inflater.hpp"

namespace gpp::pipeline {

class GpuSession {
 public:
  /// A session for the commands run with `options` (read when the session starts; they must
  /// outlive it). Nothing starts yet.
  explicit GpuSession(const CommonOptions& options);
  /// Waits for buffers still being made, so that nothing uses the GPU while the process ends. The
  /// block encoder and decoder are not destroyed but parked: the driver releases their buffers
  /// when the process ends (freeing them one by one on the way out costs time).
  ~GpuSession();
  GpuSession(const GpuSession&) = delete;
  GpuSession& operator=(const GpuSession&) = delete;

  /// The backend for --device (choose_backend), chosen once on another thread from the first call
  /// on (probing the GPUs takes a tenth of a second or more).
  std::shared_future<kernels::Backend> backend_choice();
  /// Waits for the choice; rethrows its error (--device gpu without a usable GPU).
  kernels::Backend backend() { return backend_choice().get(); }

  /// Starts, on another thread, the choice, the GPU's context and, for a command that writes BAM
  /// (`bam_output`) with --gpu-write, the block encoder's buffers, while the caller reads its input
  /// (a BAM file on the CPU's threads until the GPU decoder is ready). Where no NVIDIA device node
  /// exists the choice is made at once, so that a bad --device fails before the reading. Calls
  /// after the first do nothing.
  void start(bool bam_output);
  /// Waits for what start() began; rethrows its error.
  kernels::Backend started_backend();

  /// With --gpu-write, makes the block encoder (its buffers are allocated while the input is read).
  void prepare_output_compression();
  /// The block encoder, lent to one writer at a time (a writer that finds it lent gets its own).
  std::shared_ptr<kernels::BlockDeflater> borrow_block_deflater();
  /// With the GPU backend (or while the choice is still being made on a machine with NVIDIA's
  /// device node), unless --no-gpu-read: the block decoder as a reader's io::InflateOffload, made
  /// on another thread once the GPU is chosen; the reader inflates on the CPU until it is ready, or
  /// altogether when the decoder is lent to another reader. Empty otherwise.
  io::InflateOffload inflate_offload();
  /// The block decoder shared by many readers at once (a merge's runs), lent as inflate_offload()
  /// lends it; null where that would be empty or the decoder could not be made.
  std::shared_ptr<SharedInflater> share_inflater();

  /// GPU time of the encoder and the decoder so far (zero where none was made).
  kernels::GpuSeconds deflater_seconds();
  kernels::GpuSeconds inflater_seconds();

 private:
  const CommonOptions& options_;
  // One lock each, so that a reader asking whether the decoder is ready never waits while the
  // encoder allocates its buffers.
  std::mutex start_mutex_;
  std::shared_future<kernels::Backend> choice_;
  std::shared_future<kernels::Backend> started_;
  std::mutex deflater_mutex_;
  kernels::BlockDeflater* deflater_ = nullptr;  ///< never deleted (see the destructor)
  bool deflater_lent_ = false;
  std::mutex inflater_mutex_;
  kernels::BlockInflater* inflater_ = nullptr;  ///< never deleted (see the destructor)
  std::shared_future<void> making_inflater_;
  bool inflater_lent_ = false;
};

/// `inflater` as a reader's io::InflateOffload (one reader at a time; it must outlive the reader).
io::InflateOffload reader_inflater(kernels::BlockInflater& inflater);

/// The session `options` reaches. @throws gpp::Error when no session was made (a program error)
GpuSession& gpu_session(const CommonOptions& options);

}  // namespace gpp::pipeline
