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

PackedChunk pack_chunk(const PairHmmBatchView& batch, const Chunk& chunk,
                       std::span<const int> bin_lengths, unsigned char* buffer, bool stage_columns,
                       std::uint32_t item_columns) {
  const auto& r = batch.reads;
  const auto& hv = batch.haplotypes;
  PackedChunk p;
  p.reads = chunk.read_end - chunk.read_begin;
  p.haps = chunk.hap_end - chunk.hap_begin;
  const std::uint32_t base0 = r.offsets[chunk.read_begin], hap0 = hv.offsets[chunk.hap_begin];
  p.read_bases = r.offsets[chunk.read_end] - base0;
  p.hap_bases = hv.offsets[chunk.hap_end] - hap0;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> runs;
  p.layout = make_layout(p.read_bases, p.reads, p.hap_bases, p.haps,
                         item_bound(batch, chunk, item_columns));
  const InputLayout& l = p.layout;
  if (stage_columns) {
    gpp::parallel_copy(buffer + l.bases, r.bases.data() + base0, p.read_bases, kPackPiece);
    gpp::parallel_copy(buffer + l.base_quals, r.base_quals.data() + base0, p.read_bases,
                       kPackPiece);
    gpp::parallel_copy(buffer + l.ins_quals, r.insertion_quals.data() + base0, p.read_bases,
                       kPackPiece);
    gpp::parallel_copy(buffer + l.del_quals, r.deletion_quals.data() + base0, p.read_bases,
                       kPackPiece);
    gpp::parallel_copy(buffer + l.gcp_quals, r.gap_continuation_quals.data() + base0, p.read_bases,
                       kPackPiece);
    gpp::parallel_copy(buffer + l.hap_bases, hv.bases.data() + hap0, p.hap_bases, kPackPiece);
  }
  auto* read_offsets = reinterpret_cast<std::uint32_t*>(buffer + l.read_offsets);
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::uint32_t>(0, p.reads + 1, 1 << 14),
                            [&](const auto& range) {
                              for (std::uint32_t k = range.begin(); k < range.end(); ++k)
                                read_offsets[k] = r.offsets[chunk.read_begin + k] - base0;
                            });
  auto* hap_offsets = reinterpret_cast<std::uint32_t*>(buffer + l.hap_offsets);
  auto* hap_starts = reinterpret_cast<std::uint32_t*>(buffer + l.hap_starts);
  auto* hap_lengths = reinterpret_cast<std::uint32_t*>(buffer + l.hap_lengths);
  for (std::uint32_t k = 0; k <= p.haps; ++k) {
    hap_offsets[k] = hv.offsets[chunk.hap_begin + k] - hap0;
    if (k < p.haps) {
      hap_starts[k] = hap_offsets[k] + (k + 1) * kHapPad;
      hap_lengths[k] = hv.offsets[chunk.hap_begin + k + 1] - hv.offsets[chunk.hap_begin + k];
      p.max_hap = std::max(p.max_hap, hap_lengths[k]);
    }
  }
  p.padded_haps = static_cast<std::uint32_t>(p.hap_bases) + (p.haps + 1) * kHapPad;

  // The packing of the work items is on the host's critical path (a chunk is packed while the GPU
  // computes the two before it): the per-read work runs in parallel over regions, and the bin of
  // a read comes from a table of lengths.
  const int bins = static_cast<int>(bin_lengths.size()) + 1;
  const int longest = bin_lengths.empty() ? 0 : bin_lengths.back();
  std::vector<std::uint8_t> bin_of_length(longest + 1);
  for (int length = 0, b = 0; length <= longest && !bin_lengths.empty(); ++length) {
    while (bin_lengths[b] < length) ++b;
    bin_of_length[length] = static_cast<std::uint8_t>(b);
  }
  const std::size_t groups = chunk.group_end - chunk.group_begin;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> all_runs;  // runs of group g:
  std::vector<std::uint32_t> first_run(groups + 1);  // [first_run[g], first_run[g + 1])
  for (std::size_t g = 0; g < groups; ++g) {
    first_run[g] = static_cast<std::uint32_t>(all_runs.size());
    haplotype_runs(batch, batch.groups[chunk.group_begin + g], item_columns, runs);
    all_runs.insert(all_runs.end(), runs.begin(), runs.end());
  }
  first_run[groups] = static_cast<std::uint32_t>(all_runs.size());
  std::vector<std::uint8_t> read_bin(p.reads);
  std::vector<std::uint32_t> group_reads(groups * bins, 0);  // reads of group g in bin b
  std::vector<std::uint64_t> group_cells(groups * bins, 0);
  oneapi::tbb::parallel_for(
      oneapi::tbb::blocked_range<std::size_t>(0, groups, 16), [&](const auto& range) {
        for (std::size_t g = range.begin(); g < range.end(); ++g) {
          const auto& group = batch.groups[chunk.group_begin + g];
          const std::uint64_t hap_total =
              hv.offsets[group.first_haplotype + group.haplotype_count] -
              hv.offsets[group.first_haplotype];
          for (std::uint32_t k = group.first_read; k < group.first_read + group.read_count; ++k) {
            const int length = static_cast<int>(r.offsets[k + 1] - r.offsets[k]);
            const int bin = length <= longest ? bin_of_length[length] : bins - 1;
            read_bin[k - chunk.read_begin] = static_cast<std::uint8_t>(bin);
            ++group_reads[g * bins + bin];
            group_cells[g * bins + bin] += length * hap_total;
          }
        }
      });
  // Single-tile reads: one item per haplotype run (more, shorter items balance the GPU);
  // multi-tile reads keep one item (their boundary scratch spans the item's haplotypes).
  p.bin_start.assign(bins + 1, 0);
  p.bin_cells.assign(bins, 0);
  for (std::size_t g = 0; g < groups; ++g) {
    const auto& group = batch.groups[chunk.group_begin + g];
    for (int b = 0; b < bins; ++b) {
      const std::uint32_t reads = group_reads[g * bins + b];
      p.bin_start[b + 1] += b == bins - 1 ? reads : reads * (first_run[g + 1] - first_run[g]);
      p.bin_cells[b] += group_cells[g * bins + b];
    }
    if (group_reads[g * bins + bins - 1] > 0) {
      p.max_multi_scratch = std::max<std::uint64_t>(
          p.max_multi_scratch, hv.offsets[group.first_haplotype + group.haplotype_count] -
                                   hv.offsets[group.first_haplotype] +
                                   std::uint64_t{kBoundaryPad} * group.haplotype_count);
    }
  }
  for (int b = 0; b < bins; ++b) p.bin_start[b + 1] += p.bin_start[b];
  p.items = p.bin_start[bins];

  // Item order within a bin: the subwarps of a warp take consecutive items and the warp runs as
  // long as its slowest subwarp, haplotype by haplotype; so the runs of every region are ordered by
  // (haplotypes, bases), and the items of equal runs (every read of a region has the same runs)
  // follow one another. A stable sort of the runs (not of the items: few per chunk), so equal
  // runs keep the order of their regions.
  struct Run {
    std::uint32_t haps, columns;
    std::uint32_t group, index;
  };
  std::vector<Run> order;
  order.reserve(all_runs.size());
  for (std::size_t g = 0; g < groups; ++g) {
    const auto& group = batch.groups[chunk.group_begin + g];
    for (std::uint32_t k = first_run[g]; k < first_run[g + 1]; ++k) {
      const auto [first, count] = all_runs[k];
      const std::uint32_t h0 = group.first_haplotype + first;
      order.push_back({count, hv.offsets[h0 + count] - hv.offsets[h0],
                       static_cast<std::uint32_t>(g), k - first_run[g]});
    }
  }
  std::stable_sort(order.begin(), order.end(), [](const Run& x, const Run& y) {
    return x.haps != y.haps ? x.haps < y.haps : x.columns < y.columns;
  });
  // Where each run's items of each bin start, then the items, in parallel over runs.
  std::vector<std::uint32_t> run_fill(order.size() * bins);
  {
    std::vector<std::uint32_t> fill(p.bin_start.begin(), p.bin_start.end() - 1);
    for (std::size_t e = 0; e < order.size(); ++e) {
      for (int b = 0; b < bins; ++b) {
        run_fill[e * bins + b] = fill[b];
        if (b < bins - 1 || order[e].index == 0) fill[b] += group_reads[order[e].group * bins + b];
      }
    }
  }
  std::vector<std::uint64_t> group_result(groups + 1, 0);
  for (std::size_t g = 0; g < groups; ++g) {
    const auto& group = batch.groups[chunk.group_begin + g];
    group_result[g + 1] = group_result[g] + std::uint64_t{group.read_count} * group.haplotype_count;
  }
  auto* items = reinterpret_cast<WorkItem*>(buffer + l.items);
  oneapi::tbb::parallel_for(
      oneapi::tbb::blocked_range<std::size_t>(0, order.size(), 16), [&](const auto& range) {
        std::vector<std::uint32_t> fill(bins);
        for (std::size_t e = range.begin(); e < range.end(); ++e) {
          const Run& run = order[e];
          const auto& group = batch.groups[chunk.group_begin + run.group];
          const auto [first, count] = all_runs[first_run[run.group] + run.index];
          const std::uint32_t first_hap = group.first_haplotype - chunk.hap_begin;
          std::copy_n(run_fill.begin() + e * bins, bins, fill.begin());
          for (std::uint32_t k = 0; k < group.read_count; ++k) {
            const std::uint32_t read = group.first_read + k - chunk.read_begin;
            const int bin = read_bin[read];
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
  return p;
}

}  // namespace gpp::kernels::pairhmm_plan
