// CUDA backend of the PairHMM: the engine that moves a batch through the GPU.
//
// A batch is cut into chunks of whole regions. Each chunk is packed into one pinned buffer (read
// columns, offsets, haplotypes, work items binned by read length) and sent with one copy; the
// kernels and the copy back of the results run on the chunk's stream. Three slots (stream, pinned
// and device buffers) rotate, so the host packs chunk c+2 and the copy engine moves it while the
// GPU computes chunks c and c+1. Buffers only grow and are kept for the next batch.
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/parallel_copy.hpp"
#include "kernels/device/cuda/cuda_check.cuh"
#include "kernels/pairhmm/cuda/pairhmm_cuda.cuh"
#include "kernels/pairhmm/detail/backends.hpp"
#include "kernels/pairhmm/pairhmm.hpp"

namespace gpp::kernels::detail {

namespace {

using namespace pairhmm_cuda;
using cuda::check;
using cuda::DeviceBuffer;
using cuda::Event;
using cuda::Stream;

/// Page-locked host memory that only grows.
class PinnedBytes {
 public:
  PinnedBytes() = default;
  PinnedBytes(const PinnedBytes&) = delete;
  PinnedBytes& operator=(const PinnedBytes&) = delete;
  ~PinnedBytes() {
    if (data_ != nullptr) cudaFreeHost(data_);
  }
  unsigned char* reserve(std::size_t bytes) {
    if (bytes > size_) {
      if (data_ != nullptr) cudaFreeHost(data_);
      data_ = nullptr;
      size_ = 0;
      check(cudaMallocHost(reinterpret_cast<void**>(&data_), bytes + bytes / 4),
            "allocate pinned memory");
      size_ = bytes + bytes / 4;
    }
    return data_;
  }
  unsigned char* data() const { return data_; }

 private:
  unsigned char* data_ = nullptr;
  std::size_t size_ = 0;
};

template <typename T>
T* grow(DeviceBuffer<T>& buffer, std::size_t count) {
  if (count > buffer.size()) buffer = DeviceBuffer<T>(count + count / 4 + 64);
  return buffer.data();
}

using pairhmm_plan::Chunk;

// A work item of a single-tile bin is one read against a run of its region's haplotypes of at least
// PairHmmTuning::gpu_item_columns (256) bases: real regions have few reads and haplotypes, and one
// item per read (all haplotypes) left most of the GPU idle while a few long items finished; one
// haplotype per item repeats the item's set-up (coefficients, emission table) too often for short
// haplotypes.

// Slots in flight: the host packs chunk c + 2 while the GPU computes chunks c and c + 1, so that a
// slow packing step does not leave the GPU idle.
constexpr std::size_t kSlots = 3;

// Bins run on their own streams (PairHmmTuning::gpu_bin_streams of these) so that the last partial
// wave of one overlaps the next bin.
constexpr int kBinStreams = 8;

struct Slot {
  Stream stream;
  std::array<Stream, kBinStreams> bin_streams;
  Event done, compute_begin, compute_end, inputs_ready;
  std::array<Event, kBinStreams> bin_done;
  // GPP_PAIRHMM_PROFILE: per-bin events (bins then run one after another on the first bin stream).
  std::vector<Event> bin_begin, bin_end;
  std::vector<std::uint64_t> bin_cells;
  PinnedBytes input, output;
  DeviceBuffer<unsigned char> device_input;
  DeviceBuffer<std::uint8_t> hap_codes;
  DeviceBuffer<std::uint32_t> hap_words;
  DeviceBuffer<float4> coefficients;
  DeviceBuffer<int> exponents;
  DeviceBuffer<float> carry;
  DeviceBuffer<double> results;
  DeviceBuffer<Fp64Pair> queue_pairs;
  DeviceBuffer<std::uint32_t> queue_count;
  DeviceBuffer<float2> multi_scratch;
  DeviceBuffer<double2> fp64_scratch;
  Chunk chunk{};
  bool busy = false;
};

// Columns in page-locked memory go to the GPU as they are, and before the packing: the copy
// engine moves them while the host packs the rest (pack_chunk stages the other columns).
void copy_page_locked_columns(const PairHmmBatchView& batch, const Chunk& chunk,
                              const pairhmm_plan::InputLayout& l, unsigned char* dev,
                              cudaStream_t s) {
  const auto& r = batch.reads;
  const auto& hv = batch.haplotypes;
  const std::size_t base0 = r.offsets[chunk.read_begin], hap0 = hv.offsets[chunk.hap_begin];
  const std::size_t read_bases = r.offsets[chunk.read_end] - base0;
  const std::size_t hap_bases = hv.offsets[chunk.hap_end] - hap0;
  const std::pair<std::size_t, const void*> columns[] = {
      {l.bases, r.bases.data() + base0},
      {l.base_quals, r.base_quals.data() + base0},
      {l.ins_quals, r.insertion_quals.data() + base0},
      {l.del_quals, r.deletion_quals.data() + base0},
      {l.gcp_quals, r.gap_continuation_quals.data() + base0},
      {l.hap_bases, hv.bases.data() + hap0}};
  for (int k = 0; k < 6; ++k) {
    check(cudaMemcpyAsync(dev + columns[k].first, columns[k].second, k < 5 ? read_bases : hap_bases,
                          cudaMemcpyHostToDevice, s),
          "copy PairHMM reads to the GPU");
  }
}

// The chunk's inputs on the GPU (its copy buffer `dev`, laid out as `l`) and the slot's buffers
// the kernels write, grown to the chunk.
DeviceBatch device_batch(Slot& slot, const unsigned char* dev, const pairhmm_plan::InputLayout& l,
                         const pairhmm_plan::PackedChunk& packed, std::uint64_t pair_count,
                         const pairhmm::QualityTables* tables) {
  DeviceBatch b;
  b.bases = reinterpret_cast<const char*>(dev + l.bases);
  b.base_quals = dev + l.base_quals;
  b.ins_quals = dev + l.ins_quals;
  b.del_quals = dev + l.del_quals;
  b.gcp_quals = dev + l.gcp_quals;
  b.read_offsets = reinterpret_cast<const std::uint32_t*>(dev + l.read_offsets);
  b.hap_codes = grow(slot.hap_codes, packed.padded_haps);
  b.hap_words = grow(slot.hap_words, packed.padded_haps);
  b.hap_starts = reinterpret_cast<const std::uint32_t*>(dev + l.hap_starts);
  b.hap_lengths = reinterpret_cast<const std::uint32_t*>(dev + l.hap_lengths);
  b.tables = tables;
  b.coefficients = grow(slot.coefficients, 2 * packed.read_bases);
  b.exponents = grow(slot.exponents, packed.reads);
  b.carry = grow(slot.carry, packed.reads);
  b.results = grow(slot.results, pair_count);
  return b;
}

// The bins that hold items, by decreasing work (cells).
std::vector<int> bins_by_work(const pairhmm_plan::PackedChunk& packed, int bins) {
  std::vector<int> order;
  for (int bin = 0; bin < bins; ++bin) {
    if (packed.bin_start[bin + 1] > packed.bin_start[bin]) order.push_back(bin);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](int x, int y) { return packed.bin_cells[x] > packed.bin_cells[y]; });
  return order;
}

// The chunk's results and the fp64 queue's length back to the slot's pinned output, after which
// the slot's `done` event fires.
void copy_results_back(Slot& slot, const double* results, const std::uint32_t* queue_count,
                       std::uint64_t pair_count) {
  const cudaStream_t s = slot.stream.get();
  unsigned char* host_out = slot.output.reserve(8 * pair_count + 8);
  check(cudaMemcpyAsync(host_out, results, 8 * pair_count, cudaMemcpyDeviceToHost, s),
        "copy PairHMM results from the GPU");
  check(cudaMemcpyAsync(host_out + 8 * pair_count, queue_count, sizeof(std::uint32_t),
                        cudaMemcpyDeviceToHost, s),
        "copy the fp64 count from the GPU");
  check(cudaEventRecord(slot.done.get(), s), "record event");
}

// Likelihoods below what the fp64 kernel computes exactly: recomputed on the host in log space.
// (A plain scan first: in real data there are none.)
void recompute_below_exact(const PairHmmBatchView& batch, const Chunk& c, std::span<double> out) {
  const double* first = out.data() + c.pair_begin;
  const std::size_t below = oneapi::tbb::parallel_reduce(
      oneapi::tbb::blocked_range<std::uint64_t>(0, c.pair_count, 1 << 16), std::size_t{0},
      [&](const auto& range, std::size_t n) {
        for (std::uint64_t k = range.begin(); k < range.end(); ++k)
          n += !(first[k] >= pairhmm::kDoubleExactLog10);
        return n;
      },
      std::plus<>());
  if (below == 0) return;
  std::vector<std::array<std::uint32_t, 3>> low;  // (pair, read, haplotype)
  std::uint64_t pair = c.pair_begin;
  for (std::size_t g = c.group_begin; g < c.group_end; ++g) {
    const auto& group = batch.groups[g];
    for (std::uint32_t r = 0; r < group.read_count; ++r) {
      for (std::uint32_t h = 0; h < group.haplotype_count; ++h, ++pair) {
        if (!(out[pair] >= pairhmm::kDoubleExactLog10)) {
          low.push_back({static_cast<std::uint32_t>(pair - c.pair_begin), group.first_read + r,
                         group.first_haplotype + h});
        }
      }
    }
  }
  oneapi::tbb::parallel_for(std::size_t{0}, low.size(), [&](std::size_t k) {
    const auto [index, read, hap] = low[k];
    const auto& rd = batch.reads;
    const std::uint32_t b = rd.offsets[read], n = rd.offsets[read + 1] - b;
    const std::uint32_t hb = batch.haplotypes.offsets[hap],
                        hn = batch.haplotypes.offsets[hap + 1] - hb;
    out[c.pair_begin + index] = pairhmm_reference_log10(
        std::string_view(rd.bases.data() + b, n), rd.base_quals.subspan(b, n),
        rd.insertion_quals.subspan(b, n), rd.deletion_quals.subspan(b, n),
        rd.gap_continuation_quals.subspan(b, n),
        std::string_view(batch.haplotypes.bases.data() + hb, hn));
  });
}

bool columns_page_locked(const PairHmmBatchView& batch) {
  return is_page_locked(batch.reads.bases.data()) &&
         is_page_locked(batch.reads.base_quals.data()) &&
         is_page_locked(batch.reads.insertion_quals.data()) &&
         is_page_locked(batch.reads.deletion_quals.data()) &&
         is_page_locked(batch.reads.gap_continuation_quals.data()) &&
         is_page_locked(batch.haplotypes.bases.data());
}

// The length of the union of [begin, end) intervals (sorted in place), and the last end.
std::pair<double, double> union_length(std::vector<std::pair<double, double>>& intervals) {
  std::sort(intervals.begin(), intervals.end());
  double union_ms = 0.0, covered = -1e300;
  for (const auto& [begin, end] : intervals) {
    const double from = std::max(begin, covered);
    if (end > from) union_ms += end - from;
    covered = std::max(covered, end);
  }
  return {union_ms, covered};
}

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point from) {
  return std::chrono::duration<double, std::milli>(Clock::now() - from).count();
}

// Host time of a compute() call, for GPP_PAIRHMM_PROFILE.
struct HostTimes {
  Clock::time_point entry, engine_start;
  double enqueue_ms = 0.0, finish_ms = 0.0;
};

// Runs step() and adds its wall time to `ms`.
template <typename Step>
void add_wall_ms(double& ms, Step&& step) {
  const auto at = Clock::now();
  std::forward<Step>(step)();
  ms += ms_since(at);
}

class CudaEngine final : public PairHmm::Engine {
 public:
  CudaEngine(PairHmmPrecision precision, const PairHmmTuning& tuning) : precision_(precision) {
    const auto gpus = detect_gpus();
    if (gpus.empty()) throw Error("pairhmm: no usable GPU (" + gpu_unavailable_reason() + ")");
    check(cudaSetDevice(0), "select GPU 0");
    multi_tile_slots_ = multi_tile_slots(gpus.front().multiprocessors);
    // Reads per chunk at least: several resident waves of subwarps (long reads of the multi-tile
    // kernel are one subwarp each; fewer starved the GPU: 8 items per chunk at 8192 bases).
    min_chunk_reads_ = static_cast<std::uint32_t>(gpus.front().multiprocessors) * 32;
    fp64_slots_ = fp64_slots(gpus.front().multiprocessors);
    tables_ = DeviceBuffer<pairhmm::QualityTables>(1);
    check(cudaMemcpy(tables_.data(), &pairhmm::quality_tables(), sizeof(pairhmm::QualityTables),
                     cudaMemcpyHostToDevice),
          "copy quality tables to the GPU");
    apply_tuning(tuning);
    for (int k = 0; k < tile_kernel_count(tiles_); ++k)
      bin_lengths_.push_back(tile_kernel_info(tiles_, k).max_length);
  }

  ~CudaEngine() override { cudaDeviceSynchronize(); }  // no kernel may outlive the buffers
  CudaEngine(const CudaEngine&) = delete;
  CudaEngine& operator=(const CudaEngine&) = delete;

  void compute(const PairHmmBatchView& batch, std::span<double> out, PairHmmStats& stats) override {
    HostTimes host;
    host.entry = Clock::now();
    for (Slot& slot : slots_) {  // a previous call that failed may have left work behind
      if (slot.busy) cudaStreamSynchronize(slot.stream.get());
      slot.busy = false;
    }
    // Regions must own consecutive reads and haplotypes; copy the batch if not.
    if (!pairhmm_plan::is_ordered(batch)) {
      validate_pairhmm_offsets(batch, 0, batch.reads.size(), 0, batch.haplotypes.size());
      PairHmmBatch ordered(true);
      ordered.append(batch);
      compute(ordered.view(), out, stats);
      return;
    }
    direct_ = columns_page_locked(batch);
    const auto chunks = plan(batch, stats.cells);  // batch.cell_count(), counted by PairHmm
    // enqueue checks each chunk's reads and haplotypes; here the ones after the last region's.
    validate_pairhmm_offsets(batch, chunks.back().read_end, batch.reads.size(),
                             chunks.back().hap_end, batch.haplotypes.size());
    host.engine_start = Clock::now();
    stats.double_pairs = run_chunks(batch, chunks, out, host);
    // Kernel time: the union of the chunks' compute intervals (the slots' chunks overlap, so
    // summing them would count the overlap twice), on the timeline of `origin_`.
    const auto [union_ms, last_end] = union_length(intervals_);
    stats.compute_seconds = union_ms * 1e-3;
    if (timeline_) report_timeline(host, union_ms, last_end, chunks.size());
    if (profile_) report_bins();
  }

 private:
  void apply_tuning(const PairHmmTuning& tuning);
  std::vector<Chunk> plan(const PairHmmBatchView& batch, std::uint64_t cells) const;
  std::uint64_t run_chunks(const PairHmmBatchView& batch, const std::vector<Chunk>& chunks,
                           std::span<double> out, HostTimes& host);
  void enqueue(const PairHmmBatchView& batch, const Chunk& chunk, Slot& slot);
  void launch_bins(const DeviceBatch& b, const pairhmm_plan::PackedChunk& packed,
                   const WorkItem* items, Fp64Queue queue, Slot& slot);
  void launch_bin(const DeviceBatch& b, const pairhmm_plan::PackedChunk& packed,
                  const WorkItem* items, Fp64Queue queue, int bin, cudaStream_t bs, Slot& slot);
  void launch_multi_tile_bin(const DeviceBatch& b, const pairhmm_plan::PackedChunk& packed,
                             const WorkItem* items, std::uint32_t count, Fp64Queue queue,
                             cudaStream_t bs, Slot& slot);
  void launch_fp64(const DeviceBatch& b, Fp64Queue queue, std::uint32_t max_hap, Slot& slot);
  std::uint64_t finish(const PairHmmBatchView& batch, Slot& slot, std::span<double> out,
                       double& compute_ms);
  void record_kernel_times(Slot& slot, double& compute_ms);
  void report_timeline(const HostTimes& host, double union_ms, double last_end,
                       std::size_t chunks) const;
  void report_bins();

  PairHmmPrecision precision_;
  bool direct_ = false;  // this batch's columns are page-locked: no staging copy
  TileSet tiles_ = TileSet::kDefault;
  bool profile_ = false;   // gpu_profile 1: per-bin times (bins run one after another)
  bool timeline_ = false;  // gpu_profile 1 or 2: where the wall time goes
  // From the PairHmmTuning (apply_tuning).
  std::uint32_t item_columns_ = 0;
  std::vector<double> profile_ms_;
  std::vector<std::uint64_t> profile_cells_;
  Event origin_;
  std::vector<std::pair<double, double>> intervals_;  // compute intervals (ms after origin_)
  std::uint32_t multi_tile_slots_ = 0, fp64_slots_ = 0, min_chunk_reads_ = 0;
  std::uint64_t chunk_divisor_ = 1;        // chunks of about this fraction of the batch
  std::uint64_t first_chunk_divisor_ = 1;  // the first chunk
  int bin_streams_ = 1;
  DeviceBuffer<pairhmm::QualityTables> tables_;
  std::vector<int> bin_lengths_;
  std::array<Slot, kSlots> slots_;
};

// PairHmmTuning's settings (measurements); profiling sets up its per-bin events.
void CudaEngine::apply_tuning(const PairHmmTuning& tuning) {
  tiles_ = tuning.gpu_narrow_tiles ? TileSet::kNarrow : TileSet::kDefault;
  item_columns_ = std::max<std::uint32_t>(1, tuning.gpu_item_columns);
  chunk_divisor_ = std::max<std::uint64_t>(1, tuning.gpu_chunk_divisor);
  first_chunk_divisor_ = std::max<std::uint64_t>(1, tuning.gpu_first_chunk_divisor);
  bin_streams_ = std::clamp(tuning.gpu_bin_streams, 1, kBinStreams);
  profile_ = tuning.gpu_profile == 1;
  timeline_ = tuning.gpu_profile == 1 || tuning.gpu_profile == 2;
  if (profile_) {
    const int bins = tile_kernel_count(tiles_) + 1;
    profile_ms_.assign(bins, 0.0);
    profile_cells_.assign(bins, 0);
    for (Slot& slot : slots_) {
      slot.bin_begin = std::vector<Event>(bins);
      slot.bin_end = std::vector<Event>(bins);
    }
  }
}

// Chunks of about a sixth of the batch (`cells`), so that copies and packing overlap computation
// (with more, smaller chunks the GPU runs more, smaller launches, each ending on a partly idle
// GPU: on 1m.in x 100 every chunk more cost 0.1-0.3 ms of kernel time); the first chunk, whose
// packing and copy nothing overlaps, of about a thirty-second, and the next ones twice the one
// before (each is then packed and copied while the GPU computes the one before).
std::vector<Chunk> CudaEngine::plan(const PairHmmBatchView& batch, std::uint64_t cells) const {
  const std::uint64_t target = std::clamp<std::uint64_t>(
      cells / chunk_divisor_, std::uint64_t{1} << 28, std::uint64_t{1} << 33);
  const std::uint64_t first_target =
      std::clamp<std::uint64_t>(cells / first_chunk_divisor_, std::uint64_t{1} << 28, target);
  return pairhmm_plan::plan_chunks(batch, target, min_chunk_reads_, first_target);
}

// The chunks through the rotating slots: chunk c is enqueued once the slot's chunk c - kSlots is
// finished, then the last ones are finished. Returns the pairs computed in fp64.
std::uint64_t CudaEngine::run_chunks(const PairHmmBatchView& batch,
                                     const std::vector<Chunk>& chunks, std::span<double> out,
                                     HostTimes& host) {
  check(cudaEventRecord(origin_.get(), slots_[0].stream.get()), "record event");
  intervals_.clear();
  double compute_ms = 0.0;
  std::uint64_t double_pairs = 0;
  for (std::size_t c = 0; c < chunks.size() + kSlots; ++c) {
    Slot& slot = slots_[c % kSlots];
    add_wall_ms(host.finish_ms, [&] {
      if (slot.busy) double_pairs += finish(batch, slot, out, compute_ms);
    });
    if (c < chunks.size()) add_wall_ms(host.enqueue_ms, [&] { enqueue(batch, chunks[c], slot); });
  }
  (void)compute_ms;
  return double_pairs;
}

// Wall time = head (before the first chunk's kernels) + kernels (union) + gaps between chunks +
// tail (copy back and host work after the last kernel ends).
void CudaEngine::report_timeline(const HostTimes& host, double union_ms, double last_end,
                                 std::size_t chunks) const {
  const double wall_ms = ms_since(host.engine_start);
  const double first_begin = intervals_.empty() ? 0.0 : intervals_.front().first;
  std::fprintf(
      stderr,
      "pairhmm profile: setup %.3f ms, then wall %.3f ms: head %.3f, kernels %.3f (union), "
      "gaps %.3f, tail %.3f; %zu chunks; host: enqueue %.3f ms, finish (waits included) "
      "%.3f ms\n",
      std::chrono::duration<double, std::milli>(host.engine_start - host.entry).count(), wall_ms,
      first_begin, union_ms, last_end - first_begin - union_ms, wall_ms - last_end, chunks,
      host.enqueue_ms, host.finish_ms);
}

// Per-bin kernel time and cells since the last report (GPP_PAIRHMM_PROFILE=1), then reset.
void CudaEngine::report_bins() {
  for (std::size_t bin = 0; bin < profile_ms_.size(); ++bin) {
    if (profile_cells_[bin] == 0) continue;
    std::fprintf(stderr, "  bin %2zu (len <= %4d): %8.3f ms %7.3f Gcells %6.3f TCUPS\n", bin,
                 bin < bin_lengths_.size() ? bin_lengths_[bin] : 99999, profile_ms_[bin],
                 profile_cells_[bin] * 1e-9,
                 profile_cells_[bin] / (profile_ms_[bin] * 1e-3) * 1e-12);
    profile_ms_[bin] = 0.0;
    profile_cells_[bin] = 0;
  }
}

// Packs `chunk` into the slot's pinned buffer, copies it to the GPU and queues the kernels and the
// copy back of the results on the slot's stream; finish() collects them.
void CudaEngine::enqueue(const PairHmmBatchView& batch, const Chunk& chunk, Slot& slot) {
  validate_pairhmm_offsets(batch, chunk.read_begin, chunk.read_end, chunk.hap_begin, chunk.hap_end);
  const pairhmm_plan::InputLayout& l = pairhmm_plan::input_layout(batch, chunk, item_columns_);
  unsigned char* host = slot.input.reserve(l.total);
  const cudaStream_t s = slot.stream.get();
  unsigned char* dev = grow(slot.device_input, l.total);
  if (direct_) copy_page_locked_columns(batch, chunk, l, dev, s);
  const pairhmm_plan::PackedChunk packed =
      pairhmm_plan::pack_chunk(batch, chunk, bin_lengths_, host, !direct_, item_columns_);
  // The packed metadata (and, staged, the columns) in one copy.
  const std::size_t from = direct_ ? l.read_offsets : 0;
  check(cudaMemcpyAsync(dev + from, host + from, l.total - from, cudaMemcpyHostToDevice, s),
        "copy a PairHMM chunk to the GPU");
  const DeviceBatch b = device_batch(slot, dev, l, packed, chunk.pair_count, tables_.data());
  const Fp64Queue queue{grow(slot.queue_pairs, chunk.pair_count), grow(slot.queue_count, 1)};
  const auto* dev_items = reinterpret_cast<const WorkItem*>(dev + l.items);

  check(cudaMemsetAsync(queue.count, 0, sizeof(std::uint32_t), s), "clear the fp64 queue");
  launch_encode_haplotypes(reinterpret_cast<const char*>(dev + l.hap_bases),
                           reinterpret_cast<const std::uint32_t*>(dev + l.hap_offsets), packed.haps,
                           const_cast<std::uint8_t*>(b.hap_codes),
                           const_cast<std::uint32_t*>(b.hap_words), b.hap_starts,
                           packed.padded_haps, s);
  check(cudaEventRecord(slot.compute_begin.get(), s), "record event");
  if (precision_ == PairHmmPrecision::kDouble) {
    launch_queue_all_pairs(dev_items, packed.items, queue, s);
  } else {
    launch_prepare_reads(b, packed.reads, slot.coefficients.data(), slot.exponents.data(),
                         slot.carry.data(), s);
    launch_bins(b, packed, dev_items, queue, slot);
  }
  launch_fp64(b, queue, packed.max_hap, slot);
  check(cudaEventRecord(slot.compute_end.get(), s), "record event");
  copy_results_back(slot, b.results, queue.count, chunk.pair_count);
  slot.chunk = chunk;
  slot.busy = true;
}

// Once the reads are prepared: the bins by decreasing work, dealt round-robin to the bin streams
// (one after another on the first with GPP_PAIRHMM_PROFILE=1); the slot's stream then waits for
// them.
void CudaEngine::launch_bins(const DeviceBatch& b, const pairhmm_plan::PackedChunk& packed,
                             const WorkItem* items, Fp64Queue queue, Slot& slot) {
  const cudaStream_t s = slot.stream.get();
  check(cudaEventRecord(slot.inputs_ready.get(), s), "record event");
  const std::vector<int> order = bins_by_work(packed, tile_kernel_count(tiles_) + 1);
  const int used = std::min<int>(bin_streams_, static_cast<int>(order.size()));
  for (int k = 0; k < used; ++k) {
    check(cudaStreamWaitEvent(slot.bin_streams[k].get(), slot.inputs_ready.get(), 0),
          "order streams");
  }
  if (profile_) slot.bin_cells.assign(packed.bin_cells.begin(), packed.bin_cells.end());
  for (std::size_t n = 0; n < order.size(); ++n) {
    launch_bin(b, packed, items, queue, order[n],
               slot.bin_streams[profile_ ? 0 : n % bin_streams_].get(), slot);
  }
  for (int k = 0; k < used; ++k) {
    check(cudaEventRecord(slot.bin_done[k].get(), slot.bin_streams[k].get()), "record event");
    check(cudaStreamWaitEvent(s, slot.bin_done[k].get(), 0), "order streams");
  }
}

// The items of one bin on stream `bs`: a single-tile kernel, or the multi-tile one (last bin).
void CudaEngine::launch_bin(const DeviceBatch& b, const pairhmm_plan::PackedChunk& packed,
                            const WorkItem* items, Fp64Queue queue, int bin, cudaStream_t bs,
                            Slot& slot) {
  const int bins = tile_kernel_count(tiles_) + 1;
  const std::uint32_t begin = packed.bin_start[bin];
  const std::uint32_t count = packed.bin_start[bin + 1] - begin;
  if (profile_) check(cudaEventRecord(slot.bin_begin[bin].get(), bs), "record event");
  if (bin + 1 < bins) {
    launch_tile_kernel(tiles_, bin, b, items + begin, count, queue, bs);
  } else {
    launch_multi_tile_bin(b, packed, items + begin, count, queue, bs, slot);
  }
  if (profile_) check(cudaEventRecord(slot.bin_end[bin].get(), bs), "record event");
}

// Reads longer than the longest single tile: as many slots (warps) as the GPU holds, within a
// budget of boundary scratch.
void CudaEngine::launch_multi_tile_bin(const DeviceBatch& b,
                                       const pairhmm_plan::PackedChunk& packed,
                                       const WorkItem* items, std::uint32_t count, Fp64Queue queue,
                                       cudaStream_t bs, Slot& slot) {
  const std::uint64_t max_multi_scratch = packed.max_multi_scratch;
  std::uint32_t slots = std::min(multi_tile_slots_, count);
  const std::uint64_t budget = std::uint64_t{1} << 30;  // bytes of boundary scratch
  slots = static_cast<std::uint32_t>(std::max<std::uint64_t>(
      2, std::min<std::uint64_t>(slots,
                                 budget / (8 * std::max<std::uint64_t>(max_multi_scratch, 1)))));
  float2* scratch = grow(slot.multi_scratch, std::size_t{slots} * max_multi_scratch);
  launch_multi_tile_kernel(b, items, count, queue, scratch,
                           static_cast<std::uint32_t>(max_multi_scratch), slots, bs);
}

// The fp64 kernel over the queued pairs, with as many slots as the GPU holds within a budget of
// scratch.
void CudaEngine::launch_fp64(const DeviceBatch& b, Fp64Queue queue, std::uint32_t max_hap,
                             Slot& slot) {
  const std::uint64_t budget = std::uint64_t{1} << 29;
  const std::uint32_t slots = static_cast<std::uint32_t>(std::max<std::uint64_t>(
      8, std::min<std::uint64_t>(fp64_slots_, budget / (16 * std::uint64_t{max_hap}))));
  double2* scratch = grow(slot.fp64_scratch, std::size_t{slots} * max_hap);
  launch_fp64_kernel(b, queue, scratch, max_hap, slots, slot.stream.get());
}

// The slot's chunk, once done: its kernel times, its results into `out` (the few below the fp64
// range recomputed). Returns the pairs the fp64 kernel computed.
std::uint64_t CudaEngine::finish(const PairHmmBatchView& batch, Slot& slot, std::span<double> out,
                                 double& compute_ms) {
  check(cudaEventSynchronize(slot.done.get()), "PairHMM kernels");
  record_kernel_times(slot, compute_ms);
  const Chunk& c = slot.chunk;
  gpp::parallel_copy(out.data() + c.pair_begin, slot.output.data(), 8 * c.pair_count,
                     pairhmm_plan::kPackPiece);
  std::uint32_t count = 0;
  std::memcpy(&count, slot.output.data() + 8 * c.pair_count, sizeof count);
  slot.busy = false;
  recompute_below_exact(batch, c, out);
  return count;
}

// The slot's compute interval (and, profiled, its bins' times) from its events.
void CudaEngine::record_kernel_times(Slot& slot, double& compute_ms) {
  float ms = 0;
  check(cudaEventElapsedTime(&ms, slot.compute_begin.get(), slot.compute_end.get()),
        "read kernel time");
  compute_ms += ms;
  float begin_ms = 0, end_ms = 0;
  check(cudaEventElapsedTime(&begin_ms, origin_.get(), slot.compute_begin.get()), "read time");
  check(cudaEventElapsedTime(&end_ms, origin_.get(), slot.compute_end.get()), "read time");
  intervals_.emplace_back(begin_ms, end_ms);
  if (profile_) {
    for (std::size_t bin = 0; bin < slot.bin_cells.size(); ++bin) {
      if (slot.bin_cells[bin] == 0) continue;
      float bin_ms = 0;
      check(cudaEventElapsedTime(&bin_ms, slot.bin_begin[bin].get(), slot.bin_end[bin].get()),
            "read bin time");
      profile_ms_[bin] += bin_ms;
      profile_cells_[bin] += slot.bin_cells[bin];
    }
  }
}

}  // namespace

// Page-locked batches: cudaMallocHost when a driver is there, ordinary memory otherwise (the
// pointer's attributes tell free_host which it was).
void* allocate_host(std::size_t bytes, bool page_locked) {
  if (page_locked && bytes > 0) {
    void* p = nullptr;
    if (cudaMallocHost(&p, bytes) == cudaSuccess) return p;
    cudaGetLastError();
  }
  return ::operator new(bytes);
}

void free_host(void* pointer, bool page_locked) noexcept {
  if (pointer == nullptr) return;
  if (page_locked && is_page_locked(pointer)) {
    cudaFreeHost(pointer);
  } else {
    ::operator delete(pointer);
  }
}

bool is_page_locked(const void* pointer) {
  if (pointer == nullptr) return false;
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attributes.type == cudaMemoryTypeHost;
}

std::unique_ptr<PairHmm::Engine> make_pairhmm_cuda_engine(PairHmmPrecision precision,
                                                          const PairHmmTuning& tuning) {
  return std::make_unique<CudaEngine>(precision, tuning);
}

}  // namespace gpp::kernels::detail
