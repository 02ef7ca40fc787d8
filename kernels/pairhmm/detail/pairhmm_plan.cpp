// Host side of the CUDA PairHMM engine: chunks and their packed copy buffer (pairhmm_plan.hpp).
#include "kernels/pairhmm/detail/pairhmm_plan.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <cstring>

#include "core/parallel_copy.hpp"

namespace gpp::kernels::pairhmm_plan {

namespace {

constexpr std::size_t kAlign = 256;
std::size_t aligned(std::size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

InputLayout make_layout(std::size_t read_bases, std::size_t reads, std::size_t hap_bases,
                        std::size_t haps, std::size_t items) {
  InputLayout l{};
  std::size_t at = 0;
  auto take = [&](std::size_t bytes) {
    const std::size_t here = at;
    at += aligned(bytes);
    return here;
  };
  l.bases = take(read_bases);
  l.base_quals = take(read_bases);
  l.ins_quals = take(read_bases);
  l.del_quals = take(read_bases);
  l.gcp_quals = take(read_bases);
  l.hap_bases = take(hap_bases);
  l.read_offsets = take(4 * (reads + 1));
  l.hap_offsets = take(4 * (haps + 1));
  l.hap_starts = take(4 * haps);
  l.hap_lengths = take(4 * haps);
  l.items = take(sizeof(WorkItem) * items);
  l.total = at;
  return l;
}

}  // namespace

bool is_ordered(const PairHmmBatchView& batch) {
  std::uint32_t next_read = 0, next_hap = 0;
  for (const auto& g : batch.groups) {
    if (g.first_read != next_read || g.first_haplotype != next_hap) return false;
    next_read += g.read_count;
    next_hap += g.haplotype_count;
  }
  return true;
}

std::vector<Chunk> plan_chunks(const PairHmmBatchView& batch, std::uint64_t target_cells,
                               std::uint32_t min_reads, std::uint64_t first_target_cells) {
  if (first_target_cells == ~std::uint64_t{0}) first_target_cells = target_cells;
  constexpr std::uint64_t kMaxReadBases = std::uint64_t{1} << 26,
                          kMaxPairs = std::uint64_t{1} << 25;
  std::vector<Chunk> chunks;
  Chunk current{0, 0, 0, 0, 0, 0, 0, 0};
  std::uint64_t cells = 0, read_bases = 0, pair = 0;
  // What the current chunk aims at: first_target_cells, then twice the chunk before, up to
  // target_cells.
  std::uint64_t aim = std::min(first_target_cells, target_cells);
  for (std::size_t g = 0; g < batch.groups.size(); ++g) {
    const auto& group = batch.groups[g];
    const std::uint64_t rb = batch.reads.offsets[group.first_read + group.read_count] -
                             batch.reads.offsets[group.first_read];
    const std::uint64_t hb =
        batch.haplotypes.offsets[group.first_haplotype + group.haplotype_count] -
        batch.haplotypes.offsets[group.first_haplotype];
    const std::uint64_t pairs = std::uint64_t{group.read_count} * group.haplotype_count;
    const bool enough = cells + rb * hb > aim && current.read_end - current.read_begin >= min_reads;
    if (current.group_end > current.group_begin &&
        (enough || read_bases + rb > kMaxReadBases || current.pair_count + pairs > kMaxPairs)) {
      chunks.push_back(current);
      aim = aim > target_cells / 2 ? target_cells : 2 * aim;
      current = {
          g,    g, group.first_read, group.first_read, group.first_haplotype, group.first_haplotype,
          pair, 0};
      cells = read_bases = 0;
    }
    current.group_end = g + 1;
    current.read_end = group.first_read + group.read_count;
    current.hap_end = group.first_haplotype + group.haplotype_count;
    current.pair_count += pairs;
    cells += rb * hb;
    read_bases += rb;
    pair += pairs;
  }
  if (current.group_end > current.group_begin) chunks.push_back(current);
  return chunks;
}

// Splits a region's haplotypes into runs of consecutive haplotypes of at least item_columns bases
// (the last run takes the rest): (first, count) relative to the region. A region without
// haplotypes is one empty run.
void haplotype_runs(const PairHmmBatchView& batch, const PairHmmGroup& group,
                    std::uint32_t item_columns,
                    std::vector<std::pair<std::uint32_t, std::uint32_t>>& runs) {
  runs.clear();
  const auto& offsets = batch.haplotypes.offsets;
  std::uint32_t first = 0, columns = 0;
  for (std::uint32_t h = 0; h < group.haplotype_count; ++h) {
    const std::uint32_t hap = group.first_haplotype + h;
    columns += offsets[hap + 1] - offsets[hap];
    if (columns >= item_columns) {
      runs.emplace_back(first, h + 1 - first);
      first = h + 1;
      columns = 0;
    }
  }
  if (first < group.haplotype_count || runs.empty())
    runs.emplace_back(first, group.haplotype_count - first);
}

// Work items of a chunk at most: every read split as haplotype_runs splits its region.
std::size_t item_bound(const PairHmmBatchView& batch, const Chunk& chunk,
                       std::uint32_t item_columns) {
  if (item_columns == kAllHaplotypes) return chunk.read_end - chunk.read_begin;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> runs;
  std::size_t items = 0;
  for (std::size_t g = chunk.group_begin; g < chunk.group_end; ++g) {
    haplotype_runs(batch, batch.groups[g], item_columns, runs);
    items += std::size_t{batch.groups[g].read_count} * runs.size();
  }
  return items;
}

InputLayout input_layout(const PairHmmBatchView& batch, const Chunk& chunk,
                         std::uint32_t item_columns) {
  const std::size_t read_bases =
      batch.reads.offsets[chunk.read_end] - batch.reads.offsets[chunk.read_begin];
  const std::size_t hap_bases =
      batch.haplotypes.offsets[chunk.hap_end] - batch.haplotypes.offsets[chunk.hap_begin];
  return make_layout(read_bases, chunk.read_end - chunk.read_begin, hap_bases,
                     chunk.hap_end - chunk.hap_begin, item_bound(batch, chunk, item_columns));
}

namespace {

// A chunk's sizes and the layout of its copy buffer.
PackedChunk chunk_sizes(const PairHmmBatchView& batch, const Chunk& chunk,
                        std::uint32_t item_columns) {
  const auto& r = batch.reads;
  const auto& hv = batch.haplotypes;
  PackedChunk p;
  p.reads = chunk.read_end - chunk.read_begin;
  p.haps = chunk.hap_end - chunk.hap_begin;
  const std::uint32_t base0 = r.offsets[chunk.read_begin], hap0 = hv.offsets[chunk.hap_begin];
  p.read_bases = r.offsets[chunk.read_end] - base0;
  p.hap_bases = hv.offsets[chunk.hap_end] - hap0;
  p.layout = make_layout(p.read_bases, p.reads, p.hap_bases, p.haps,
                         item_bound(batch, chunk, item_columns));
  return p;
}

// The five read columns and the haplotype bases of the chunk, at their places in the buffer.
void copy_columns(const PairHmmBatchView& batch, const Chunk& chunk, const PackedChunk& p,
                  unsigned char* buffer) {
  const auto& r = batch.reads;
  const auto& hv = batch.haplotypes;
  const InputLayout& l = p.layout;
  const std::uint32_t base0 = r.offsets[chunk.read_begin], hap0 = hv.offsets[chunk.hap_begin];
  gpp::parallel_copy(buffer + l.bases, r.bases.data() + base0, p.read_bases, kPackPiece);
  gpp::parallel_copy(buffer + l.base_quals, r.base_quals.data() + base0, p.read_bases, kPackPiece);
  gpp::parallel_copy(buffer + l.ins_quals, r.insertion_quals.data() + base0, p.read_bases,
                     kPackPiece);
  gpp::parallel_copy(buffer + l.del_quals, r.deletion_quals.data() + base0, p.read_bases,
                     kPackPiece);
  gpp::parallel_copy(buffer + l.gcp_quals, r.gap_continuation_quals.data() + base0, p.read_bases,
                     kPackPiece);
  gpp::parallel_copy(buffer + l.hap_bases, hv.bases.data() + hap0, p.hap_bases, kPackPiece);
}

// Read offsets rebased to the chunk's first read.
void pack_read_offsets(const PairHmmBatchView& batch, const Chunk& chunk, std::uint32_t reads,
                       std::uint32_t* read_offsets) {
  const auto& r = batch.reads;
  const std::uint32_t base0 = r.offsets[chunk.read_begin];
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::uint32_t>(0, reads + 1, 1 << 14),
                            [&](const auto& range) {
                              for (std::uint32_t k = range.begin(); k < range.end(); ++k)
                                read_offsets[k] = r.offsets[chunk.read_begin + k] - base0;
                            });
}

// Haplotype offsets rebased to the chunk's first haplotype, starts among the padded codes on the
// GPU, and lengths; the longest length and the padded size into `p`.
void pack_haplotypes(const PairHmmBatchView& batch, const Chunk& chunk, unsigned char* buffer,
                     PackedChunk& p) {
  const auto& hv = batch.haplotypes;
  const InputLayout& l = p.layout;
  const std::uint32_t hap0 = hv.offsets[chunk.hap_begin];
  auto* hap_offsets = reinterpret_cast<std::uint32_t*>(buffer + l.hap_offsets);
  auto* hap_starts = reinterpret_cast<std::uint32_t*>(buffer + l.hap_starts);
  auto* hap_lengths = reinterpret_cast<std::uint32_t*>(buffer + l.hap_lengths);
  std::uint32_t max_hap = 0;
  for (std::uint32_t k = 0; k <= p.haps; ++k) {
    hap_offsets[k] = hv.offsets[chunk.hap_begin + k] - hap0;
    if (k < p.haps) {
      hap_starts[k] = hap_offsets[k] + (k + 1) * kHapPad;
      hap_lengths[k] = hv.offsets[chunk.hap_begin + k + 1] - hv.offsets[chunk.hap_begin + k];
      max_hap = std::max(max_hap, hap_lengths[k]);
    }
  }
  p.max_hap = max_hap;
  p.padded_haps = static_cast<std::uint32_t>(p.hap_bases) + (p.haps + 1) * kHapPad;
}

// The bin of a read length from a table: bin b holds lengths <= bin_lengths[b], the last bin
// (bin_lengths.size()) the longer ones.
struct LengthBins {
  explicit LengthBins(std::span<const int> bin_lengths)
      : count(static_cast<int>(bin_lengths.size()) + 1),
        longest(bin_lengths.empty() ? 0 : bin_lengths.back()),
        bin_of_length(longest + 1) {
    for (int length = 0, b = 0; length <= longest && !bin_lengths.empty(); ++length) {
      while (bin_lengths[b] < length) ++b;
      bin_of_length[length] = static_cast<std::uint8_t>(b);
    }
  }
  int bin(int length) const { return length <= longest ? bin_of_length[length] : count - 1; }

  int count;
  int longest;
  std::vector<std::uint8_t> bin_of_length;
};

// The haplotype runs of the chunk's regions: region g's are all[first[g], first[g + 1]).
struct ChunkRuns {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> all;
  std::vector<std::uint32_t> first;
};

ChunkRuns chunk_runs(const PairHmmBatchView& batch, const Chunk& chunk,
                     std::uint32_t item_columns) {
  const std::size_t groups = chunk.group_end - chunk.group_begin;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> runs;
  ChunkRuns c;
  c.first.resize(groups + 1);
  for (std::size_t g = 0; g < groups; ++g) {
    c.first[g] = static_cast<std::uint32_t>(c.all.size());
    haplotype_runs(batch, batch.groups[chunk.group_begin + g], item_columns, runs);
    c.all.insert(c.all.end(), runs.begin(), runs.end());
  }
  c.first[groups] = static_cast<std::uint32_t>(c.all.size());
  return c;
}

// The bin of each read of the chunk, and the reads and cells of each region in each bin.
struct ReadBins {
  int bins;
  std::vector<std::uint8_t> of_read;       // by read, relative to the chunk
  std::vector<std::uint32_t> group_reads;  // reads of region g in bin b: [g * bins + b]
  std::vector<std::uint64_t> group_cells;  // their cells
};

// In parallel over regions: per read, its bin from the table of lengths.
ReadBins bin_reads(const PairHmmBatchView& batch, const Chunk& chunk, const LengthBins& lengths) {
  const auto& r = batch.reads;
  const auto& hv = batch.haplotypes;
  const std::size_t groups = chunk.group_end - chunk.group_begin;
  const int bins = lengths.count;
  ReadBins b{bins, std::vector<std::uint8_t>(chunk.read_end - chunk.read_begin),
             std::vector<std::uint32_t>(groups * bins, 0),
             std::vector<std::uint64_t>(groups * bins, 0)};
  oneapi::tbb::parallel_for(
      oneapi::tbb::blocked_range<std::size_t>(0, groups, 16), [&](const auto& range) {
        for (std::size_t g = range.begin(); g < range.end(); ++g) {
          const auto& group = batch.groups[chunk.group_begin + g];
          const std::uint64_t hap_total =
              hv.offsets[group.first_haplotype + group.haplotype_count] -
              hv.offsets[group.first_haplotype];
          for (std::uint32_t k = group.first_read; k < group.first_read + group.read_count; ++k) {
            const int length = static_cast<int>(r.offsets[k + 1] - r.offsets[k]);
            const int bin = lengths.bin(length);
            b.of_read[k - chunk.read_begin] = static_cast<std::uint8_t>(bin);
            ++b.group_reads[g * bins + bin];
            b.group_cells[g * bins + bin] += length * hap_total;
          }
        }
      });
  return b;
}

// Items and cells per bin, and the largest boundary scratch of a multi-tile read, into `p`.
// Single-tile reads: one item per haplotype run (more, shorter items balance the GPU);
// multi-tile reads keep one item (their boundary scratch spans the item's haplotypes).
void count_bin_items(const PairHmmBatchView& batch, const Chunk& chunk, const ChunkRuns& runs,
                     const ReadBins& read_bins, PackedChunk& p) {
  const auto& hv = batch.haplotypes;
  const std::size_t groups = chunk.group_end - chunk.group_begin;
  const int bins = read_bins.bins;
  p.bin_start.assign(bins + 1, 0);
  p.bin_cells.assign(bins, 0);
  for (std::size_t g = 0; g < groups; ++g) {
    const auto& group = batch.groups[chunk.group_begin + g];
    for (int b = 0; b < bins; ++b) {
      const std::uint32_t reads = read_bins.group_reads[g * bins + b];
      p.bin_start[b + 1] += b == bins - 1 ? reads : reads * (runs.first[g + 1] - runs.first[g]);
      p.bin_cells[b] += read_bins.group_cells[g * bins + b];
    }
    if (read_bins.group_reads[g * bins + bins - 1] > 0) {
      p.max_multi_scratch = std::max<std::uint64_t>(
          p.max_multi_scratch, hv.offsets[group.first_haplotype + group.haplotype_count] -
                                   hv.offsets[group.first_haplotype] +
                                   std::uint64_t{kBoundaryPad} * group.haplotype_count);
    }
  }
  for (int b = 0; b < bins; ++b) p.bin_start[b + 1] += p.bin_start[b];
  p.items = p.bin_start[bins];
}

// A haplotype run of a region: its haplotypes and bases, the region (in the chunk) and its
// index among the region's runs.
struct Run {
  std::uint32_t haps, columns;
  std::uint32_t group, index;
};

// Item order within a bin: the subwarps of a warp take consecutive items and the warp runs as
// long as its slowest subwarp, haplotype by haplotype; so the runs of every region are ordered by
// (haplotypes, bases), and the items of equal runs (every read of a region has the same runs)
// follow one another. A stable sort of the runs (not of the items: few per chunk), so equal
// runs keep the order of their regions.
std::vector<Run> runs_in_item_order(const PairHmmBatchView& batch, const Chunk& chunk,
                                    const ChunkRuns& runs) {
  const auto& hv = batch.haplotypes;
  const std::size_t groups = chunk.group_end - chunk.group_begin;
  std::vector<Run> order;
  order.reserve(runs.all.size());
  for (std::size_t g = 0; g < groups; ++g) {
    const auto& group = batch.groups[chunk.group_begin + g];
    for (std::uint32_t k = runs.first[g]; k < runs.first[g + 1]; ++k) {
      const auto [first, count] = runs.all[k];
      const std::uint32_t h0 = group.first_haplotype + first;
      order.push_back({count, hv.offsets[h0 + count] - hv.offsets[h0],
                       static_cast<std::uint32_t>(g), k - runs.first[g]});
    }
  }
  std::stable_sort(order.begin(), order.end(), [](const Run& x, const Run& y) {
    return x.haps != y.haps ? x.haps < y.haps : x.columns < y.columns;
  });
  return order;
}

// Where each run's items of each bin start (run e, bin b: [e * bins + b]), runs in item order.
// A region's multi-tile reads take their one item with its first run.
std::vector<std::uint32_t> run_item_starts(const std::vector<Run>& order, const ReadBins& read_bins,
                                           const std::vector<std::uint32_t>& bin_start) {
  const int bins = read_bins.bins;
  std::vector<std::uint32_t> run_fill(order.size() * bins);
  std::vector<std::uint32_t> fill(bin_start.begin(), bin_start.end() - 1);
  for (std::size_t e = 0; e < order.size(); ++e) {
    for (int b = 0; b < bins; ++b) {
      run_fill[e * bins + b] = fill[b];
      if (b < bins - 1 || order[e].index == 0)
        fill[b] += read_bins.group_reads[order[e].group * bins + b];
    }
  }
  return run_fill;
}

// Where each region's results start (pairs, relative to the chunk).
std::vector<std::uint64_t> region_results(const PairHmmBatchView& batch, const Chunk& chunk) {
  const std::size_t groups = chunk.group_end - chunk.group_begin;
  std::vector<std::uint64_t> group_result(groups + 1, 0);
  for (std::size_t g = 0; g < groups; ++g) {
    const auto& group = batch.groups[chunk.group_begin + g];
    group_result[g + 1] = group_result[g] + std::uint64_t{group.read_count} * group.haplotype_count;
  }
  return group_result;
}

// The work items, in parallel over runs: the reads of each run's region, each at its bin's next
// place for that run.
void write_items(const PairHmmBatchView& batch, const Chunk& chunk, const ChunkRuns& runs,
                 const ReadBins& read_bins, const std::vector<Run>& order,
                 const std::vector<std::uint32_t>& bin_start, WorkItem* items) {
  const int bins = read_bins.bins;
  const std::vector<std::uint32_t> run_fill = run_item_starts(order, read_bins, bin_start);
  const std::vector<std::uint64_t> group_result = region_results(batch, chunk);
  oneapi::tbb::parallel_for(
      oneapi::tbb::blocked_range<std::size_t>(0, order.size(), 16), [&](const auto& range) {
        std::vector<std::uint32_t> fill(bins);
        for (std::size_t e = range.begin(); e < range.end(); ++e) {
          const Run& run = order[e];
          const auto& group = batch.groups[chunk.group_begin + run.group];
          const auto [first, count] = runs.all[runs.first[run.group] + run.index];
          const std::uint32_t first_hap = group.first_haplotype - chunk.hap_begin;
          std::copy_n(run_fill.begin() + e * bins, bins, fill.begin());
          for (std::uint32_t k = 0; k < group.read_count; ++k) {
            const std::uint32_t read = group.first_read + k - chunk.read_begin;
            const int bin = read_bins.of_read[read];
            const std::uint64_t read_result =
                group_result[run.group] + std::uint64_t{k} * group.haplotype_count;
            if (bin == bins - 1) {  // multi-tile reads: one item, placed with the first run
              if (run.index == 0) {
                items[fill[bin]++] = {read, first_hap, group.haplotype_count,
                                      static_cast<std::uint32_t>(read_result)};
              }
            } else {
              items[fill[bin]++] = {read, first_hap + first, count,
                                    static_cast<std::uint32_t>(read_result + first)};
            }
          }
        }
      });
}

}  // namespace

PackedChunk pack_chunk(const PairHmmBatchView& batch, const Chunk& chunk,
                       std::span<const int> bin_lengths, unsigned char* buffer, bool stage_columns,
                       std::uint32_t item_columns) {
  PackedChunk p = chunk_sizes(batch, chunk, item_columns);
  if (stage_columns) copy_columns(batch, chunk, p, buffer);
  pack_read_offsets(batch, chunk, p.reads,
                    reinterpret_cast<std::uint32_t*>(buffer + p.layout.read_offsets));
  pack_haplotypes(batch, chunk, buffer, p);
  // The packing of the work items is on the host's critical path (a chunk is packed while the GPU
  // computes the two before it): the per-read work runs in parallel over regions, and the bin of
  // a read comes from a table of lengths.
  const LengthBins lengths(bin_lengths);
  const ChunkRuns runs = chunk_runs(batch, chunk, item_columns);
  const ReadBins read_bins = bin_reads(batch, chunk, lengths);
  count_bin_items(batch, chunk, runs, read_bins, p);
  const std::vector<Run> order = runs_in_item_order(batch, chunk, runs);
  write_items(batch, chunk, runs, read_bins, order, p.bin_start,
              reinterpret_cast<WorkItem*>(buffer + p.layout.items));
  return p;
}

}  // namespace gpp::kernels::pairhmm_plan
