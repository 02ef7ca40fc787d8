// bench_io: read a BAM into columns and write it back.
//
//   bench_io IN.bam OUT.bam THREADS [whole|stream]
//
// whole:  every record into columns, then every record written (what `sort` does);
// stream: batches of 200,000 records read and written in turn with one shared I/O thread pool,
//         so decompression and compression overlap (what `samtools view -@` does).
// Prints one line: records, seconds, records/s. The peer figure (samtools view -@THREADS -b) is
// taken by bench/io/run.sh in the same run.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "io/alignment_reader.hpp"
#include "io/alignment_writer.hpp"
#include "io/thread_pool.hpp"
#include "kernels/error.hpp"

namespace {

constexpr std::size_t kStreamBatch = 200'000;

std::size_t copy_whole(const std::string& input, const std::string& output, int threads) {
  gpp::io::AlignmentReader reader(input, {.threads = threads});
  gpp::io::ReadBatch batch;
  reader.read_into(batch);
  gpp::io::write_alignments(output, reader.header(), batch, {.threads = threads});
  return batch.size();
}

std::size_t copy_streaming(const std::string& input, const std::string& output, int threads) {
  gpp::io::ThreadPool pool(threads);
  gpp::io::AlignmentReader reader(input, {.pool = &pool});
  gpp::io::AlignmentWriter writer(output, reader.header(), {.pool = &pool});
  gpp::io::ReadBatch batch;
  while (reader.read_into(batch, kStreamBatch) > 0) {
    writer.write(batch);
    batch.clear();
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
  try {
    const auto start = std::chrono::steady_clock::now();
    const std::size_t records = mode == "whole" ? copy_whole(argv[1], argv[2], std::atoi(argv[3]))
                                                : copy_streaming(argv[1], argv[2], std::atoi(argv[3]));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("mode=%s records=%zu total_s=%.3f records_per_s=%.0f\n", mode.c_str(), records, seconds,
                records / seconds);
  } catch (const gpp::Error& e) {
    std::fprintf(stderr, "bench_io: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
