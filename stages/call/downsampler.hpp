// HaplotypeCaller's read downsampling (--max-reads-per-alignment-start, default 50): GATK's
// PositionalDownsampler around a ReservoirDownsampler, made deterministic.
//
// Reads come in coordinate order; reads sharing (contig, alignment start) form a stack, and a
// stack keeps at most `max_reads_per_alignment_start` reads by reservoir sampling (Vitter's
// algorithm R). GATK draws the replacement slot from its shared random generator; here the slot
// is GATK's own non-random choice (ReservoirDownsampler's nonRandomReplacementMode, which GATK
// uses for flow-based reads): for the n-th read of a stack (n > max),
//     slot = |java_string_hash(name)| mod n,  replacing reservoir[slot] if slot < max.
// The result depends only on the reads and their order, never on threads or timing. (Where
// Java's |INT_MIN| would stay negative and fail, this takes 2^31.) Reads with no assigned
// position (no contig or start) pass through. Stacks are emitted in input order, each as its
// reservoir (replacements take their slot's place), as GATK emits them.
//
// @code
//   // 3 reads at 100, then 1 read at 101, max 2: reads 0 and 1 kept (read 2 replaces slot
//   // |hash| mod 3 if that is < 2), then read 3
//   std::vector<std::size_t> kept = downsample_by_alignment_start(reads, 2);
// @endcode
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "stages/call/call_read.hpp"

namespace gpp::stages::call {

/// AssemblyRegionArgumentCollection.DEFAULT_MAX_READS_PER_ALIGNMENT.
inline constexpr int kDefaultMaxReadsPerAlignmentStart = 50;

/// Java's String.hashCode (s[0] * 31^(n-1) + ... + s[n-1], 32-bit wrap-around), each byte of
/// `text` taken as one character.
std::int32_t java_string_hash(std::string_view text);

/**
 * @brief PositionalDownsampler(max, nonRandomReplacementMode = true) over `reads`.
 *
 * @param reads                         coordinate-sorted reads (contig, then start)
 * @param max_reads_per_alignment_start reads kept per stack; <= 0 keeps every read (GATK: no
 *                                      downsampler)
 * @return indices into `reads` of the kept reads, in GATK's output order
 * @throws gpp::Error if the reads are not coordinate-sorted
 */
std::vector<std::size_t> downsample_by_alignment_start(std::span<const CallRead> reads,
                                                       int max_reads_per_alignment_start);

}  // namespace gpp::stages::call
