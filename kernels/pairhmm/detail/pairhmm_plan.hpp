// Host side of the CUDA PairHMM engine, kept free of CUDA so that it is unit-tested everywhere:
// cutting a batch into chunks of whole regions, and packing a chunk into the one buffer that is
// copied to the GPU (columns, rebased offsets, padded haplotype positions, work items binned by
// read length).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "kernels/pairhmm/pairhmm.hpp"

namespace gpp::kernels::pairhmm_plan {

/// Separator codes stored before and after every haplotype on the GPU: a thread of a subwarp reads
/// the haplotype up to 31 positions outside it, and the separator's emission 0 keeps those cells 0.
inline constexpr int kHapPad = 32;

/// Boundary-row scratch of the multi-tile kernel per haplotype, beyond its length: the tile's last
/// thread writes every step of its step groups, from column -31 to column n + 3.
inline constexpr int kBoundaryPad = 40;

/// One read against haplotypes [first_hap, first_hap + hap_count); results at result + h.
/// Indices are relative to the chunk.
struct WorkItem {
  std::uint32_t read;
  std::uint32_t first_hap;
  std::uint32_t hap_count;
  std::uint32_t result;
};

/// Groups [group_begin, group_end) of an ordered batch, their reads, haplotypes and pairs.
struct Chunk {
  std::size_t group_begin, group_end;
  std::uint32_t read_begin, read_end, hap_begin, hap_end;
  std::uint64_t pair_begin, pair_count;
};

/// True when group g's reads and haplotypes follow group g-1's (as PairHmmBatch builds them).
bool is_ordered(const PairHmmBatchView& batch);

/// Chunks of about target_cells cells (at least one region each), and at most 2^26 read bases and
/// 2^25 pairs. The batch must be ordered.
/// A chunk also takes at least min_reads reads (where the limits allow): a launch of few long items
/// leaves most of the GPU idle. The first chunk aims at first_target_cells (default: target_cells):
/// nothing overlaps its packing and copy; the next ones at twice the one before, up to
/// target_cells, so that each is packed and copied while the GPU computes the one before.
std::vector<Chunk> plan_chunks(const PairHmmBatchView& batch, std::uint64_t target_cells,
                               std::uint32_t min_reads = 0,
                               std::uint64_t first_target_cells = ~std::uint64_t{0});

/// Byte offsets of a chunk's inputs in its copy buffer: the six columns first, then the metadata.
struct InputLayout {
  std::size_t bases, base_quals, ins_quals, del_quals, gcp_quals, hap_bases;  // columns
  std::size_t read_offsets, hap_offsets, hap_starts, hap_lengths, items, total;
};

/// What pack_chunk produced besides the buffer contents.
struct PackedChunk {
  InputLayout layout;
  std::size_t read_bases = 0, hap_bases = 0;
  std::uint32_t reads = 0, haps = 0;
  std::uint32_t items = 0;        ///< work items (bin_start.back())
  std::uint32_t padded_haps = 0;  ///< codes on the GPU: haplotype bases + (haps + 1) * kHapPad
  std::uint32_t max_hap = 0;
  std::uint64_t max_multi_scratch = 0;   ///< the largest haplotype total of a multi-tile read, each
                                         ///< haplotype with kBoundaryPad columns more
  std::vector<std::uint32_t> bin_start;  ///< items of bin b: [bin_start[b], bin_start[b + 1])
  std::vector<std::uint64_t> bin_cells;
};

/// The layout of a chunk (for sizing the buffer before packing).
/// With item_columns, a read of a single-tile bin becomes one item per run of consecutive
/// haplotypes of its region that holds at least item_columns bases (the last run: the rest). By
/// default (kAllHaplotypes) one item per read.
inline constexpr std::uint32_t kAllHaplotypes = 0xffffffffu;
InputLayout input_layout(const PairHmmBatchView& batch, const Chunk& chunk,
                         std::uint32_t item_columns = kAllHaplotypes);

/**
 * @brief Packs `chunk` into `buffer` (input_layout(...).total bytes): rebased read and haplotype
 * offsets, padded haplotype starts and lengths, and the work items, sorted by bin (bin b
 * holds reads of length <= bin_lengths[b]; the last bin, bin_lengths.size(), the longer ones).
 * Within a bin, items are ordered by their haplotype run (number of haplotypes, then bases), and
 * items of equal runs by region, then read: the subwarps of a warp take consecutive items and
 * should do the same work. With `stage_columns`, also copies the six columns.
 */
PackedChunk pack_chunk(const PairHmmBatchView& batch, const Chunk& chunk,
                       std::span<const int> bin_lengths, unsigned char* buffer, bool stage_columns,
                       std::uint32_t item_columns = kAllHaplotypes);

/// Pieces of gpp::parallel_copy when packing (packing is bound by host memory bandwidth).
inline constexpr std::size_t kPackPiece = std::size_t{1} << 20;

}  // namespace gpp::kernels::pairhmm_plan
