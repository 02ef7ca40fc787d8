#include "pipeline/alignment_io.hpp"

#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>

#include "gpp/build_info.hpp"
#include "io/alignment_reader.hpp"
#include "io/alignment_writer.hpp"
#include "kernels/bgzf_deflate.hpp"
#include "pipeline/log.hpp"

namespace gpp::pipeline {

namespace {
double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
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
}  // namespace

void prepare_output_compression(const CommonOptions& common) {
  if (!common.gpu_write) return;
  ProcessDeflater& process = process_deflater();
  const std::lock_guard lock(process.mutex);
  if (process.deflater == nullptr) process.deflater = new kernels::BlockDeflater(choose_backend(common));
}

void settle_output_compression() {
  ProcessDeflater& process = process_deflater();
  const std::lock_guard lock(process.mutex);
  if (process.deflater == nullptr) return;
  try {
    process.deflater->wait_ready();
  } catch (...) {  // the process is ending: an error nobody used is moot
  }
}

io::ReadBatch load_alignments(const std::string& path, const std::string& reference,
                              const CommonOptions& common, io::Header& header, bool keep_bam_records,
                              io::RecordVisitor* visitor) {
  const auto start = std::chrono::steady_clock::now();
  io::AlignmentReader reader(
      path, {.threads = thread_count(common),
             .reference = reference,
             .keep_bam_records = keep_bam_records,
             .visitor = visitor});
  io::ReadBatch batch;
  reader.read_into(batch);
  header = reader.header();
  log::info("read " + std::to_string(batch.size()) + " records from " + path + " in " +
            format_seconds(seconds_since(start)));
  return batch;
}

io::WriterOptions writer_options(const CommonOptions& common) {
  io::WriterOptions options{.threads = thread_count(common), .compression_level = common.compression_level};
  if (common.gpu_write) {
    const std::shared_ptr<kernels::BlockDeflater> deflater = borrow_block_deflater(common);
    options.block_deflater = {
        .submit =
            [deflater](const io::BlockDeflater::Job& job) {
              deflater->submit({.data = job.data, .stride = job.stride, .sizes = job.sizes, .count = job.count,
                                .out = job.out, .out_stride = job.out_stride, .out_capacity = job.capacity,
                                .out_sizes = job.out_sizes});
            },
        .wait_oldest = [deflater] { deflater->wait_oldest(); },
        .allocate = [deflater](std::size_t bytes) { return deflater->allocate_host(bytes); },
        .max_blocks = deflater->max_blocks(),
        .in_flight = deflater->max_in_flight()};
  }
  return options;
}

std::unique_ptr<io::AlignmentWriter> open_alignment_output(const std::string& path, const io::Header& header,
                                                           const std::string& reference,
                                                           const CommonOptions& common, bool coordinate_sorted) {
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
  const auto start = std::chrono::steady_clock::now();
  const auto writer = open_alignment_output(path, header, reference, common, coordinate_sorted);
  writer->write(batch, order);
  writer->finish();
  log::info("wrote " + std::to_string(batch.size()) + " records to " + path +
            (coordinate_sorted ? " (indexed)" : "") + " in " + format_seconds(seconds_since(start)));
}

}  // namespace gpp::pipeline
