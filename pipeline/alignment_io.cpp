#include "pipeline/alignment_io.hpp"

#include <chrono>
#include <cstdio>
#include <functional>
#include <future>
#include <memory>
#include <mutex>

#include "core/elapsed.hpp"
#include "gpp/build_info.hpp"
#include "io/bam/alignment_reader.hpp"
#include "io/bam/alignment_writer.hpp"
#include "kernels/bgzf/bgzf_deflate.hpp"
#include "kernels/bgzf/bgzf_inflate.hpp"
#include "pipeline/log.hpp"
#include "pipeline/memory_budget.hpp"

namespace gpp::pipeline {

namespace {
std::string format_seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f s", s);
  return buf;
}

// With --gpu-write, one block encoder per process, made ahead of the first writer so that its
// buffers are allocated while the input is read, and lent to one writer at a time (a writer that
// finds it lent makes its own). It is never destroyed: the driver releases its buffers when the
// process ends, instead of the writer's teardown freeing them one by one on the way out.
struct ProcessDeflater {
  std::mutex mutex;
  kernels::BlockDeflater* deflater = nullptr;
  bool lent = false;
};

ProcessDeflater& process_deflater() {
  static ProcessDeflater* const process = new ProcessDeflater;  // outlives every writer
  return *process;
}

kernels::GpuSeconds process_deflater_seconds() {
  ProcessDeflater& process = process_deflater();
  const std::lock_guard lock(process.mutex);
  return process.deflater != nullptr ? process.deflater->gpu_seconds() : kernels::GpuSeconds{};
}

std::shared_ptr<kernels::BlockDeflater> borrow_block_deflater(const CommonOptions& common) {
  prepare_output_compression(common);
  ProcessDeflater& process = process_deflater();
  const std::lock_guard lock(process.mutex);
  if (process.lent) return std::make_shared<kernels::BlockDeflater>(choose_backend(common));
  process.lent = true;
  return std::shared_ptr<kernels::BlockDeflater>(process.deflater, [](kernels::BlockDeflater*) {
    ProcessDeflater& returned_to = process_deflater();
    const std::lock_guard returning(returned_to.mutex);
    returned_to.lent = false;
  });
}

// On the GPU backend, one block decoder per process, lent to one reader at a time (a reader that
// finds it lent inflates on the CPU); made on another thread once the backend is known (`making`),
// never destroyed, as the encoder above.
struct ProcessInflater {
  std::mutex mutex;
  kernels::BlockInflater* inflater = nullptr;
  std::shared_future<void> making;
  bool lent = false;
};

ProcessInflater& process_inflater() {
  static ProcessInflater* const process = new ProcessInflater;
  return *process;
}

kernels::GpuSeconds process_inflater_seconds() {
  ProcessInflater& process = process_inflater();
  const std::lock_guard lock(process.mutex);
  return process.inflater != nullptr ? process.inflater->gpu_seconds() : kernels::GpuSeconds{};
}

// Compressed bytes per read-ahead step when the GPU inflates (the GPU streams the file ahead of
// the steps; a step lands whole parts of it).
constexpr std::size_t kGpuReadAheadBytes = 64 << 20;

// A reader's interface to the decoder that `get` returns (called for each part).
io::InflateOffload forward_to(const std::function<kernels::BlockInflater&()>& get) {
  return {.submit =
              [get](const io::InflateOffload::Part& part) {
                get().submit({.data = part.data,
                              .in_offsets = part.in_offsets,
                              .in_sizes = part.in_sizes,
                              .count = part.count,
                              .out_sizes = part.out_sizes});
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

// With the GPU backend, or while the choice is still being made on a machine with NVIDIA's device
// node (unless --no-gpu-read): the process's block decoder, made on another thread once the GPU is
// chosen (it then makes its buffers on a thread of its own); the reader inflates on the CPU until
// it is ready. A choice that fails (--device gpu without a usable GPU) stops the reading at its
// next step with the choice's error. Returned when the last copy of the reader's interface goes.
io::InflateOffload gpu_inflate_offload(const CommonOptions& common) {
  if (!common.gpu_read ||
      kernels::parse_device_choice(common.device) == kernels::DeviceChoice::kCpu)
    return {};
  const std::shared_future<kernels::Backend> choice = backend_choice(common);
  const bool chosen = choice.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  if ((chosen || !kernels::gpu_device_nodes_present()) && choice.get() != kernels::Backend::kGpu)
    return {};
  ProcessInflater& process = process_inflater();
  {
    const std::lock_guard lock(process.mutex);
    if (process.lent) return {};
    if (!process.making.valid()) {
      process.making =
          std::async(std::launch::async, [choice] {
            try {
              if (choice.get() != kernels::Backend::kGpu) return;
              auto* made = new kernels::BlockInflater(kernels::Backend::kGpu);
              ProcessInflater& p = process_inflater();
              const std::lock_guard made_lock(p.mutex);
              p.inflater = made;
            } catch (...) {  // no decoder: the reading stays on the CPU (or stops, see ready)
            }
          }).share();
    }
    process.lent = true;
  }
  const std::shared_ptr<void> lease(nullptr, [](void*) {
    ProcessInflater& returned_to = process_inflater();
    const std::lock_guard returning(returned_to.mutex);
    returned_to.lent = false;
  });
  // Parts go in only once ready() has said yes: by then the decoder exists and stays.
  io::InflateOffload lent =
      forward_to([lease]() -> kernels::BlockInflater& { return *process_inflater().inflater; });
  lent.ready = [choice] {
    if (choice.wait_for(std::chrono::seconds(0)) == std::future_status::ready)
      choice.get();  // rethrows a failed choice
    ProcessInflater& p = process_inflater();
    const std::lock_guard ready_lock(p.mutex);
    return p.inflater != nullptr && p.inflater->ready();
  };
  lent.in_flight = kernels::BlockInflater::gpu_parts_in_flight();
  return lent;
}
}  // namespace

io::InflateOffload reader_inflater(kernels::BlockInflater& inflater) {
  io::InflateOffload lent =
      forward_to([&inflater]() -> kernels::BlockInflater& { return inflater; });
  lent.in_flight = inflater.in_flight();
  return lent;
}

GpuStart::GpuStart(const CommonOptions& common) {
  const std::shared_future<kernels::Backend> choice = backend_choice(common);
  started_ = std::async(std::launch::async, [choice, &common] {
               const kernels::Backend backend = choice.get();
               kernels::initialize_device(backend);
               prepare_output_compression(common);
               return backend;
             }).share();
  if (!kernels::gpu_device_nodes_present()) started_.get();  // a bad --device fails here
}

void prepare_output_compression(const CommonOptions& common) {
  if (!common.gpu_write) return;
  ProcessDeflater& process = process_deflater();
  const std::lock_guard lock(process.mutex);
  if (process.deflater == nullptr)
    process.deflater = new kernels::BlockDeflater(choose_backend(common));
}

void settle_gpu_io() {
  // The process is ending: an error nobody used is moot.
  {
    ProcessDeflater& process = process_deflater();
    const std::lock_guard lock(process.mutex);
    try {
      if (process.deflater != nullptr) process.deflater->wait_ready();
    } catch (...) {
    }
  }
  ProcessInflater& process = process_inflater();
  std::shared_future<void> making;
  {
    const std::lock_guard lock(process.mutex);
    making = process.making;
  }
  if (making.valid()) making.wait();  // it takes the lock to finish
  const std::lock_guard lock(process.mutex);
  try {
    if (process.inflater != nullptr) process.inflater->wait_ready();
  } catch (...) {
  }
}

io::ReadBatch load_alignments(const std::string& path, const std::string& reference,
                              const CommonOptions& common, io::Header& header,
                              bool keep_bam_records, io::RecordVisitor* visitor) {
  log::debug("reading " + path);
  const auto start = std::chrono::steady_clock::now();
  io::ReaderOptions options{.threads = thread_count(common),
                            .reference = reference,
                            .keep_bam_records = keep_bam_records,
                            .visitor = visitor,
                            .inflate_offload = gpu_inflate_offload(common)};
  if (options.inflate_offload) options.read_ahead_bytes = kGpuReadAheadBytes;
  const kernels::GpuSeconds gpu_before = process_inflater_seconds();
  io::AlignmentReader reader(path, options);
  io::ReadBatch batch;
  reader.read_into(batch);
  header = reader.header();
  log::info("read " + std::to_string(batch.size()) + " records from " + path + " in " +
            format_seconds(seconds_since(start)));
  if (const auto stages = reader.bam_stage_seconds(); stages.inflating > 0) {
    const kernels::GpuSeconds gpu = process_inflater_seconds();
    log::debug("BAM reading: inflating " + format_seconds(stages.inflating) +
               (options.inflate_offload
                    ? " (GPU kernels " + format_seconds(gpu.kernels - gpu_before.kernels) +
                          ", waited for the GPU " + format_seconds(gpu.waited - gpu_before.waited) +
                          ")"
                    : "") +
               ", finding records " + format_seconds(stages.finding) + ", decoding waited " +
               format_seconds(stages.waiting));
  }
  return batch;
}

io::ReaderOptions streaming_reader_options(const CommonOptions& common,
                                           const std::string& reference) {
  return {.threads = thread_count(common),
          .reference = reference,
          .read_ahead_bytes = read_ahead_bytes(memory_budget(common))};
}

// Encoded and compressed records in flight take at most this share of --max-memory.
constexpr std::uint64_t kWriterShareOfMemory = 16;

io::WriterOptions writer_options(const CommonOptions& common) {
  io::WriterOptions options{
      .threads = thread_count(common),
      .compression_level = common.compression_level,
      .max_step_bytes = static_cast<std::size_t>(memory_budget(common) / kWriterShareOfMemory)};
  if (common.gpu_write) {
    const std::shared_ptr<kernels::BlockDeflater> deflater = borrow_block_deflater(common);
    options.deflate_offload = {
        .submit =
            [deflater](const io::DeflateOffload::Job& job) {
              deflater->submit({.data = job.data,
                                .stride = job.stride,
                                .sizes = job.sizes,
                                .count = job.count,
                                .out = job.out,
                                .out_stride = job.out_stride,
                                .out_capacity = job.capacity,
                                .out_sizes = job.out_sizes});
            },
        .wait_oldest = [deflater] { deflater->wait_oldest(); },
        .allocate = [deflater](std::size_t bytes) { return deflater->allocate_host(bytes); },
        .max_blocks = deflater->max_blocks(),
        .in_flight = deflater->max_in_flight()};
  }
  return options;
}

std::unique_ptr<io::AlignmentWriter> open_alignment_output(const std::string& path,
                                                           const io::Header& header,
                                                           const std::string& reference,
                                                           const CommonOptions& common,
                                                           bool coordinate_sorted) {
  io::Header out_header = header.clone();
  out_header.add_program("gpu-pipeline", build_info::kVersion, common.command_line);
  io::WriterOptions options = writer_options(common);
  options.reference = reference;
  options.write_index = coordinate_sorted;
  return std::make_unique<io::AlignmentWriter>(path, out_header, options);
}

void save_alignments(const std::string& path, const io::Header& header, const io::ReadBatch& batch,
                     std::span<const std::uint32_t> order, const std::string& reference,
                     const CommonOptions& common, bool coordinate_sorted) {
  log::debug("writing " + path);
  const auto start = std::chrono::steady_clock::now();
  const auto writer = open_alignment_output(path, header, reference, common, coordinate_sorted);
  const kernels::GpuSeconds gpu_before = process_deflater_seconds();
  writer->write(batch, order);
  writer->finish();
  log::info("wrote " + std::to_string(batch.size()) + " records to " + path +
            (coordinate_sorted ? " (indexed)" : "") + " in " +
            format_seconds(seconds_since(start)));
  if (const io::BamWriteSeconds stages = writer->bam_stage_seconds();
      stages.filling + stages.compressing > 0) {
    const kernels::GpuSeconds gpu = process_deflater_seconds();
    log::debug("BAM writing: filling " + format_seconds(stages.filling) + ", compressing " +
               format_seconds(stages.compressing) +
               (common.gpu_write
                    ? " (GPU kernels " + format_seconds(gpu.kernels - gpu_before.kernels) + ")"
                    : "") +
               ", framing " + format_seconds(stages.framing) + ", waited for writes " +
               format_seconds(stages.writes_waited));
  }
}

}  // namespace gpp::pipeline
