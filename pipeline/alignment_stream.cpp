#include "pipeline/alignment_stream.hpp"

#include <array>
#include <future>

#include "kernels/error.hpp"

namespace gpp::pipeline {

namespace {

// With a writer: three batches in turn (reading k + 1, transforming k, writing k - 1); without,
// two (reading k + 1, transforming k).
std::uint64_t stream(io::AlignmentReader& reader, io::AlignmentWriter* writer, std::size_t records_per_batch,
                     const std::function<void(io::ReadBatch&)>& transform, stages::PhaseTimes* times) {
  if (records_per_batch == 0) throw Error("records per batch must be at least 1");
  const std::size_t slots = writer != nullptr ? 3 : 2;
  std::array<io::ReadBatch, 3> batches;
  auto read = [&reader, records_per_batch](io::ReadBatch& batch) {
    batch.clear();  // keeps the columns' memory for the next batch
    return reader.read_into(batch, records_per_batch);
  };
  // Declared after the batches: on an exception they are waited for before the batches go.
  std::future<std::size_t> reading = std::async(std::launch::async, read, std::ref(batches[0]));
  std::future<void> writing;
  std::uint64_t records = 0;
  for (std::size_t k = 0;; ++k) {
    io::ReadBatch& batch = batches[k % slots];
    std::size_t count = 0;
    {
      const stages::ScopedPhase phase(times, "waiting for input");
      count = reading.get();
    }
    if (count == 0) break;
    records += count;
    // Batch k + 1 takes the place of batch k + 1 - slots, which is done with: transformed (two
    // slots), or written before batch k - 1's writing began (three).
    reading = std::async(std::launch::async, read, std::ref(batches[(k + 1) % slots]));
    transform(batch);
    if (writer == nullptr) continue;
    if (writing.valid()) {
      const stages::ScopedPhase phase(times, "waiting for output");
      writing.get();
    }
    writing = std::async(std::launch::async, [writer, &batch] { writer->write(batch); });
  }
  if (writing.valid()) {
    const stages::ScopedPhase phase(times, "waiting for output");
    writing.get();
  }
  return records;
}

}  // namespace

std::uint64_t stream_alignments(io::AlignmentReader& reader, io::AlignmentWriter& writer,
                                std::size_t records_per_batch,
                                const std::function<void(io::ReadBatch&)>& transform,
                                stages::PhaseTimes* times) {
  return stream(reader, &writer, records_per_batch, transform, times);
}

std::uint64_t read_in_batches(io::AlignmentReader& reader, std::size_t records_per_batch,
                              const std::function<void(io::ReadBatch&)>& consume,
                              stages::PhaseTimes* times) {
  return stream(reader, nullptr, records_per_batch, consume, times);
}

}  // namespace gpp::pipeline
