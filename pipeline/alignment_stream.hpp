// Streaming an alignment file in batches, through a per-batch step and into an output, with
// bounded memory: the shape of every stage that works a read at a time (BaseRecalibrator,
// ApplyBQSR).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "core/phase_times.hpp"
#include "io/bam/alignment_reader.hpp"
#include "io/bam/alignment_writer.hpp"
#include "io/reads/read_batch.hpp"

namespace gpp::pipeline {

/// Records per batch when streaming: large enough that every thread and the GPU have whole
/// batches of work, small enough that three batches stay well under a gigabyte each.
inline constexpr std::size_t kDefaultRecordsPerBatch = std::size_t{1} << 20;

/// How much one batch holds: at most `records` records and about `bytes` bytes of columns
/// (io::ReadBatch::memory_bytes; the batch ends with the step of 4,096 records that reaches it).
struct BatchSize {
  std::size_t records = kDefaultRecordsPerBatch;
  std::uint64_t bytes = ~std::uint64_t{0};
};

/// A streaming command's batches take at most this share of --max-memory each: up to three are
/// held at once (read ahead, worked on, written behind), beside what the work itself holds.
inline constexpr std::uint64_t kBatchesInFlight = 8;

/// Records read between looks at a batch's size: also what a batch takes at least, however
/// few bytes it is given.
inline constexpr std::size_t kRecordsPerStep = 4096;

/// Appends the next records of `reader` to `batch`, up to `size` (counting what `batch` holds
/// already), at least a step of them; returns how many were appended, 0 at the end of the
/// input.
std::size_t read_batch(io::AlignmentReader& reader, io::ReadBatch& batch, const BatchSize& size);

/**
 * @brief Reads `reader` to its end a batch of `batch_size` at a time, hands each batch to
 * `transform` on the calling thread, and writes it with `writer`, in input order.
 *
 * While batch k is transformed, batch k + 1 is read on one thread and batch k - 1 written on
 * another, so at most three batches are held whatever the size of the file. Returns the number
 * of records; `times`, when given, gets how long the caller waited for input and for output. An
 * exception from any of the three is rethrown here once the others have
 * stopped; the writer is then left unfinished (its output does not appear).
 */
std::uint64_t stream_alignments(io::AlignmentReader& reader, io::AlignmentWriter& writer,
                                const BatchSize& batch_size,
                                const std::function<void(io::ReadBatch&)>& transform,
                                PhaseTimes* times = nullptr);

/// stream_alignments without an output: `consume` gets each batch while the next one is read
/// (two batches held).
std::uint64_t read_in_batches(io::AlignmentReader& reader, const BatchSize& batch_size,
                              const std::function<void(io::ReadBatch&)>& consume,
                              PhaseTimes* times = nullptr);

}  // namespace gpp::pipeline
