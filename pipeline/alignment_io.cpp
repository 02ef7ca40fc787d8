#include "pipeline/alignment_io.hpp"

#include <chrono>
#include <cstdio>
#include <memory>
#include <vector>

#include "core/elapsed.hpp"
#include "gpp/build_info.hpp"
#include "io/bam/alignment_reader.hpp"
#include "io/bam/alignment_writer.hpp"
#include "kernels/bgzf/bgzf_deflate.hpp"
#include "pipeline/gpu_session.hpp"
#include "pipeline/log.hpp"
#include "pipeline/memory_budget.hpp"

namespace gpp::pipeline {

namespace {
std::string format_seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f s", s);
  return buf;
}

// Compressed bytes per read-ahead step when the GPU inflates (the GPU streams the file ahead of
// the steps; a step lands whole parts of it).
constexpr std::size_t kGpuReadAheadBytes = 64 << 20;

}  // namespace

io::ReadBatch load_alignments(const std::string& path, const std::string& reference,
                              const CommonOptions& common, io::Header& header,
                              bool keep_bam_records, io::RecordVisitor* visitor) {
  log::debug("reading " + path);
  const auto start = std::chrono::steady_clock::now();
  io::ReaderOptions options{.threads = thread_count(common),
                            .reference = reference,
                            .keep_bam_records = keep_bam_records,
                            .visitor = visitor,
                            .inflate_offload = gpu_session(common).inflate_offload()};
  if (options.inflate_offload) options.read_ahead_bytes = kGpuReadAheadBytes;
  const kernels::GpuSeconds gpu_before = gpu_session(common).inflater_seconds();
  io::AlignmentReader reader(path, options);
  io::ReadBatch batch;
  reader.read_into(batch);
  header = reader.header();
  log::info("read " + std::to_string(batch.size()) + " records from " + path + " in " +
            format_seconds(seconds_since(start)));
  if (const auto stages = reader.bam_stage_seconds(); stages.inflating > 0) {
    const kernels::GpuSeconds gpu = gpu_session(common).inflater_seconds();
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
          .read_ahead_bytes = read_ahead_bytes(memory_budget(common)),
          .inflate_offload = gpu_session(common).inflate_offload()};
}

void read_near_intervals(io::AlignmentReader& reader, const std::vector<io::Interval>& intervals,
                         std::int64_t padding) {
  if (intervals.empty()) return;
  std::vector<io::ContigRange> near;
  for (const io::Interval& interval : intervals) {
    near.push_back({reader.header().contig_index(interval.contig), interval.start - padding,
                    interval.end + padding});
  }
  if (reader.restrict_to(near)) {
    log::info(reader.path() + ": reading the records near the intervals through its index");
  }
}

// Encoded and compressed records in flight take at most this share of --max-memory.
constexpr std::uint64_t kWriterShareOfMemory = 16;

io::WriterOptions writer_options(const CommonOptions& common) {
  io::WriterOptions options{
      .threads = thread_count(common),
      .compression_level = common.compression_level,
      .max_step_bytes = static_cast<std::size_t>(memory_budget(common) / kWriterShareOfMemory)};
  if (common.gpu_write) {
    const std::shared_ptr<kernels::BlockDeflater> deflater =
        gpu_session(common).borrow_block_deflater();
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

io::WriterOptions spill_writer_options(const CommonOptions& common) {
  io::WriterOptions options = writer_options(common);
  options.compression_level = 1;
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

void add_write_stages(PhaseTimes& times, const io::AlignmentWriter& writer) {
  const io::BamWriteSeconds stages = writer.bam_stage_seconds();
  if (stages.filling + stages.compressing == 0) return;  // not a BAM
  if (stages.filling > 0) {  // a block encoder (the GPU's) compresses what the threads fill
    times.add("of the writing: filling blocks", stages.filling);
    times.add("compressing", stages.compressing);
    times.add("framing", stages.framing);
  } else {  // each thread fills and compresses its blocks
    times.add("of the writing: filling and compressing blocks", stages.compressing);
  }
  times.add("waiting for the disk", stages.writes_waited);
}

std::unique_ptr<io::AlignmentWriter> save_alignments(
    const std::string& path, const io::Header& header, const io::ReadBatch& batch,
    std::span<const std::uint32_t> order, const std::string& reference, const CommonOptions& common,
    bool coordinate_sorted) {
  log::debug("writing " + path);
  const auto start = std::chrono::steady_clock::now();
  auto writer = open_alignment_output(path, header, reference, common, coordinate_sorted);
  const kernels::GpuSeconds gpu_before = gpu_session(common).deflater_seconds();
  writer->write(batch, order);
  writer->close();
  log::info("wrote " + std::to_string(batch.size()) + " records to " + path +
            (coordinate_sorted ? " (indexed)" : "") + " in " +
            format_seconds(seconds_since(start)));
  if (const io::BamWriteSeconds stages = writer->bam_stage_seconds();
      stages.filling + stages.compressing > 0) {
    const kernels::GpuSeconds gpu = gpu_session(common).deflater_seconds();
    log::debug("BAM writing: filling " + format_seconds(stages.filling) + ", compressing " +
               format_seconds(stages.compressing) +
               (common.gpu_write
                    ? " (GPU kernels " + format_seconds(gpu.kernels - gpu_before.kernels) + ")"
                    : "") +
               ", framing " + format_seconds(stages.framing) + ", waited for writes " +
               format_seconds(stages.writes_waited));
  }
  return writer;
}

}  // namespace gpp::pipeline
