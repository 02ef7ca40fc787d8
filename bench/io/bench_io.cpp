// bench_io: read a BAM into columns and write it back.
//
//   bench_io IN.bam OUT.bam THREADS [whole|stream]
//
// whole:  every record into columns, then every record written (what `sort` does);
// stream: batches of 200,000 records, the next read while the current one is written, so
//         decompression and compression overlap (as in `samtools view -@`).
// Prints one line: records, seconds, records/s. The peer figure (samtools view -@THREADS -b) is
// taken by bench/io/run.sh in the same run.
#include <oneapi/tbb/global_control.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <thread>

#include "core/error.hpp"
#include "io/bam/alignment_reader.hpp"
#include "io/bam/alignment_writer.hpp"

namespace {

constexpr std::size_t kStreamBatch = 200'000;

std::size_t copy_whole(const std::string& input, const std::string& output, int threads) {
  const auto start = std::chrono::steady_clock::now();
  gpp::io::AlignmentReader reader(input, {.threads = threads});
  gpp::io::ReadBatch batch;
  reader.read_into(batch);
  const auto read = std::chrono::steady_clock::now();
  gpp::io::write_alignments(output, reader.header(), batch, {.threads = threads});
  std::fprintf(stderr, "read_s=%.3f write_s=%.3f\n",
               std::chrono::duration<double>(read - start).count(),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - read).count());
  return batch.size();
}

// A reader thread fills one batch while the calling thread encodes and compresses the other.
std::size_t copy_streaming(const std::string& input, const std::string& output, int threads) {
  gpp::io::AlignmentReader reader(input, {.threads = threads});
  gpp::io::AlignmentWriter writer(output, reader.header(), {.threads = threads});
  gpp::io::ReadBatch batches[2];
  std::size_t filled = reader.read_into(batches[0], kStreamBatch);
  for (int current = 0; filled > 0; current ^= 1) {
    gpp::io::ReadBatch& next = batches[current ^ 1];
    next.clear();
    std::size_t next_filled = 0;
    std::exception_ptr failure;
    std::thread prefetch([&] {
      try {
        next_filled = reader.read_into(next, kStreamBatch);
      } catch (...) {
        failure = std::current_exception();
      }
    });
    writer.write(batches[current]);
    prefetch.join();
    if (failure) std::rethrow_exception(failure);
    filled = next_filled;
  }
  writer.finish();
  return writer.records_written();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || argc > 5) {
    std::fprintf(stderr, "usage: bench_io IN.bam OUT.bam THREADS [whole|stream]\n");
    return 2;
  }
  const std::string mode = argc == 5 ? argv[4] : "stream";
  // THREADS bounds the encoding/compression threads too, as in gpu-pipeline --threads.
  const oneapi::tbb::global_control parallelism(
      oneapi::tbb::global_control::max_allowed_parallelism, std::max(1, std::atoi(argv[3])));
  try {
    const auto start = std::chrono::steady_clock::now();
    const std::size_t records = mode == "whole"
                                    ? copy_whole(argv[1], argv[2], std::atoi(argv[3]))
                                    : copy_streaming(argv[1], argv[2], std::atoi(argv[3]));
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("mode=%s records=%zu total_s=%.3f records_per_s=%.0f\n", mode.c_str(), records,
                seconds, records / seconds);
  } catch (const gpp::Error& e) {
    std::fprintf(stderr, "bench_io: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
