#include "pipeline/alignment_stream.hpp"

#include <algorithm>
#include <array>
#include <future>
#include <utility>

#include "core/error.hpp"
#include "core/task_thread.hpp"

namespace gpp::pipeline {

namespace {

// With a writer: three batches in turn (reading k + 1, transforming k, writing k - 1); without,
// two (reading k + 1, transforming k).
std::uint64_t stream(io::AlignmentReader& reader, io::AlignmentWriter* writer,
                     const BatchSize& batch_size,
                     const std::function<void(io::ReadBatch&)>& transform, PhaseTimes* times) {
  if (batch_size.records == 0) throw Error("records per batch must be at least 1");
  const std::size_t slots = writer != nullptr ? 3 : 2;
  std::array<io::ReadBatch, 3> batches;
  auto read = [&reader, batch_size](io::ReadBatch& batch) {
    batch.clear();  // keeps the columns' memory for the next batch
    return read_batch(reader, batch, batch_size);
  };
  // Declared after the batches: on an exception they finish before the batches go.
  TaskThread reading_thread, writing_thread;
  std::future<std::size_t> reading = reading_thread.submit([&] { return read(batches[0]); });
  std::future<void> writing;
  std::uint64_t records = 0;
  for (std::size_t k = 0;; ++k) {
    io::ReadBatch& batch = batches[k % slots];
    std::size_t count = 0;
    {
      const ScopedPhase phase(times, "waiting for input");
      count = reading.get();
    }
    if (count == 0) break;
    records += count;
    // Batch k + 1 takes the place of batch k + 1 - slots, which is done with: transformed (two
    // slots), or written before batch k - 1's writing began (three).
    reading = reading_thread.submit([&, next = (k + 1) % slots] { return read(batches[next]); });
    transform(batch);
    if (writer == nullptr) continue;
    if (writing.valid()) {
      const ScopedPhase phase(times, "waiting for output");
      writing.get();
    }
    writing = writing_thread.submit([writer, &batch] { writer->write(batch); });
  }
  if (writing.valid()) {
    const ScopedPhase phase(times, "waiting for output");
    writing.get();
  }
  return records;
}

// A fresh batch growing towards `size` from its first records: room for the rest reserved at once
// (by the first records' average sizes, 5% over), so that its columns are not copied and faulted
// in again each time they double. A refilled batch (room for half of it or more) keeps its
// memory as it is.
void reserve_towards(io::ReadBatch& batch, const BatchSize& size) {
  const std::size_t n = batch.size();
  if (n == 0 || batch.keeps_bam_records() || batch.seq_offset.size() <= n) return;
  const double per_record = static_cast<double>(batch.memory_bytes()) / static_cast<double>(n);
  const auto expected = static_cast<std::size_t>(std::min(
      1.05 * static_cast<double>(size.bytes) / per_record, static_cast<double>(size.records)));
  if (expected <= n || batch.flag.capacity() >= expected / 2) return;
  const auto average = [&](const auto& offsets) {
    return static_cast<std::size_t>((offsets[n] - offsets[0]) / n + 1);
  };
  batch.reserve_more(expected - n, average(batch.seq_offset), average(batch.name_offset),
                     average(batch.cigar_offset), average(batch.aux_offset));
}

}  // namespace

std::size_t read_batch(io::AlignmentReader& reader, io::ReadBatch& batch, const BatchSize& size) {
  if (size.bytes == ~std::uint64_t{0}) return reader.read_into(batch, size.records);
  std::size_t read = 0;
  // Some records are read whatever the size (a batch of none would read as the input's end).
  while (read < size.records && (read == 0 || batch.memory_bytes() < size.bytes)) {
    const std::size_t got = reader.read_into(batch, std::min(kRecordsPerStep, size.records - read));
    if (got == 0) break;
    if (read == 0 && batch.size() == got) reserve_towards(batch, size);
    read += got;
  }
  return read;
}

std::uint64_t stream_alignments(io::AlignmentReader& reader, io::AlignmentWriter& writer,
                                const BatchSize& batch_size,
                                const std::function<void(io::ReadBatch&)>& transform,
                                PhaseTimes* times) {
  return stream(reader, &writer, batch_size, transform, times);
}

std::uint64_t read_in_batches(io::AlignmentReader& reader, const BatchSize& batch_size,
                              const std::function<void(io::ReadBatch&)>& consume,
                              PhaseTimes* times) {
  return stream(reader, nullptr, batch_size, consume, times);
}

}  // namespace gpp::pipeline
