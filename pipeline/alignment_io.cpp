#include "pipeline/alignment_io.hpp"

#include <chrono>
#include <cstdio>

#include "gpp/build_info.hpp"
#include "io/alignment_reader.hpp"
#include "io/alignment_writer.hpp"
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
}  // namespace

io::ReadBatch load_alignments(const std::string& path, const std::string& reference,
                              const CommonOptions& common, io::Header& header) {
  const auto start = std::chrono::steady_clock::now();
  io::AlignmentReader reader(path, {.threads = thread_count(common), .reference = reference});
  io::ReadBatch batch;
  reader.read_into(batch);
  header = reader.header();
  log::info("read " + std::to_string(batch.size()) + " records from " + path + " in " +
            format_seconds(seconds_since(start)));
  return batch;
}

void save_alignments(const std::string& path, const io::Header& header, const io::ReadBatch& batch,
                     std::span<const std::uint32_t> order, const std::string& reference,
                     const CommonOptions& common, bool coordinate_sorted) {
  const auto start = std::chrono::steady_clock::now();
  io::Header out_header = header.clone();
  out_header.add_program("gpu-pipeline", build_info::kVersion, common.command_line);
  io::write_alignments(path, out_header, batch, order,
                       {.threads = thread_count(common),
                        .reference = reference,
                        .compression_level = common.compression_level,
                        .write_index = coordinate_sorted});
  log::info("wrote " + std::to_string(batch.size()) + " records to " + path +
            (coordinate_sorted ? " (indexed)" : "") + " in " + format_seconds(seconds_since(start)));
}

}  // namespace gpp::pipeline
