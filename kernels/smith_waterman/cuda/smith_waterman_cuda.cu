// CUDA backend of smith-waterman: bins pairs by kernel shape, cuts them into chunks that fit a
// memory budget, and pipelines the chunks over two CUDA streams (while the GPU aligns one chunk,
// the host packs the next and turns the previous one's tracebacks into CIGARs). Device and pinned
// host buffers persist across calls and only grow. Pairs whose traceback matrix exceeds the budget
// are aligned by the CPU backend.
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

#include "kernels/device/cuda/cuda_check.cuh"
#include "kernels/smith_waterman/cuda/smith_waterman_kernels.cuh"
#include "kernels/smith_waterman/detail/backends.hpp"
#include "kernels/smith_waterman/detail/smith_waterman_plan.hpp"
#include "kernels/smith_waterman/smith_waterman.hpp"

namespace gpp::kernels::detail {

namespace {

using cuda::check;
using sw::gpu::PairOutput;
using sw::gpu::PairTask;

constexpr int kWarpsPerBlock = 4;
constexpr int kTracebackThreads = 128;
constexpr std::size_t kFirstChunkPairs = std::size_t{1} << 13;
constexpr std::size_t kMaxChunkPairs = std::size_t{1} << 18;
constexpr std::uint64_t kMaxChunkBases = std::uint64_t{1} << 28;  // byte offsets stay 32-bit

using cuda::Event;
using cuda::Stream;

/// Grows a device or page-locked buffer to `count` elements; grow-only (buffers are sized by the
/// first, largest chunk of a batch: pairs are planned longest first) and reused by the others.
template <typename Buffer>
void ensure(Buffer& buffer, std::size_t count) {
  if (buffer.size() < count) {
    buffer = Buffer();  // free first: the budget assumes one copy
    buffer = Buffer(count);
  }
}

/// A pair as the planner sees it (no default initializers: a million are filled in parallel).
struct Item {
  std::uint32_t index;
  std::int32_t n, m;
  sw::GpuShape shape;
  std::uint64_t
      words;          ///< traceback words (a 16-bit warp's: all on its first pair, 0 on the other)
  std::int32_t half;  ///< -1: a warp of its own; 0, 1: a 16-bit warp's (0 first, 1 next)
};

/// Whether two items are aligned by one launch (same kernel and columns per lane).
bool same_launch(const Item& a, const Item& b) {
  return a.shape.columns_per_lane == b.shape.columns_per_lane && (a.half < 0) == (b.half < 0);
}

/// The planner's arrays, kept across batches like the GPU buffers: for a million pairs they are
/// about 70 MB, whose first touch each time cost more than the planning itself.
struct PlanBuffers {
  std::vector<std::uint64_t> keys, scratch, ordered;
  std::vector<std::int8_t> halves;
  std::vector<Item> items;
  void reserve(std::size_t count) {
    for (auto* v : {&keys, &scratch, &ordered}) {
      if (v->size() < count) v->resize(count);
    }
    if (halves.size() < count) halves.resize(count);
    if (items.size() < count) items.resize(count);
  }
};

/// One stream with its buffers and the chunk it has in flight.
struct Slot {
  Stream stream;
  Event started, computed, done;
  cuda::DeviceBuffer<std::uint8_t> bases;
  cuda::DeviceBuffer<PairTask> tasks;
  cuda::DeviceBuffer<PairOutput> outputs;
  cuda::DeviceBuffer<std::uint32_t> traceback, run_slots, runs, run_total;
  cuda::DeviceBuffer<int2> boundary;
  cuda::PinnedBuffer<std::uint8_t> host_bases;
  cuda::PinnedBuffer<PairTask> host_tasks;
  cuda::PinnedBuffer<PairOutput> host_outputs;
  cuda::PinnedBuffer<std::uint32_t> host_runs, host_run_total;
  std::span<const Item> chunk;  ///< empty when idle
};

/// The streams and buffers of an aligner's batches.
struct Workspace {
  std::unique_ptr<Slot> slots[2];
  PlanBuffers plan;
};

/// Traceback bytes one chunk (one stream) may use: a third of the available device memory (free,
/// within --gpu-memory), at most 16 GiB (launches of a few thousand pairs leave the GPU idle in
/// their last wave), unless SwTuning::gpu_chunk_bytes says otherwise.
std::uint64_t chunk_budget_bytes(const SwTuning& tuning) {
  if (tuning.gpu_chunk_bytes != 0) return tuning.gpu_chunk_bytes;
  return std::clamp<std::uint64_t>(device_memory_available() / 3, std::uint64_t{64} << 20,
                                   std::uint64_t{16} << 30);
}
/// SwTuning::gpu_max_pair_bytes lowers the per-pair limit (tests use it to force the CPU
/// fallback).
std::uint64_t pair_limit_bytes(std::uint64_t chunk_budget, const SwTuning& tuning) {
  if (tuning.gpu_max_pair_bytes != 0) return std::min(chunk_budget, tuning.gpu_max_pair_bytes);
  return chunk_budget;
}

/// The wavefront parameters of both fill kernels.
struct LaunchParameters {
  sw::WavefrontParameters single;
  sw::DualParameters dual;
};

/// One launch for `count` pairs of one columns-per-lane R: a warp each, or (`dual`) a warp per two.
template <int R>
void launch_fill(bool dual, const PairTask* tasks, int count, const Slot& s,
                 const LaunchParameters& lp, PairOutput* outputs) {
  const int warps = dual ? count / 2 : count;
  const unsigned blocks = static_cast<unsigned>((warps + kWarpsPerBlock - 1) / kWarpsPerBlock);
  if (dual) {
    sw::gpu::sw_dual_fill_kernel<R, kWarpsPerBlock>
        <<<blocks, kWarpsPerBlock * 32, 0, s.stream.get()>>>(
            tasks, warps, s.bases.data(), s.traceback.data(), s.boundary.data(), outputs, lp.dual);
    cuda::check_launch("sw_dual_fill_kernel");
  } else {
    sw::gpu::sw_fill_kernel<R, kWarpsPerBlock><<<blocks, kWarpsPerBlock * 32, 0, s.stream.get()>>>(
        tasks, warps, s.bases.data(), s.traceback.data(), s.boundary.data(), outputs, lp.single);
    cuda::check_launch("sw_fill_kernel");
  }
}

void launch_fill_group(int columns_per_lane, bool dual, const PairTask* tasks, int count,
                       const Slot& s, const LaunchParameters& lp, PairOutput* outputs) {
  switch (columns_per_lane) {
    case 1:
      return launch_fill<1>(dual, tasks, count, s, lp, outputs);
    case 2:
      return launch_fill<2>(dual, tasks, count, s, lp, outputs);
    case 3:
      return launch_fill<3>(dual, tasks, count, s, lp, outputs);
    case 4:
      return launch_fill<4>(dual, tasks, count, s, lp, outputs);
    case 5:
      return launch_fill<5>(dual, tasks, count, s, lp, outputs);
    case 6:
      return launch_fill<6>(dual, tasks, count, s, lp, outputs);
    case 7:
      return launch_fill<7>(dual, tasks, count, s, lp, outputs);
    default:
      return launch_fill<8>(dual, tasks, count, s, lp, outputs);
  }
}

/// Packs a chunk into the slot's pinned buffers and queues copies and kernels on its stream.
void enqueue(Slot& s, std::span<const Item> chunk, const SequencePairs& pairs,
             const LaunchParameters& lp) {
  const std::size_t count = chunk.size();
  // Tasks are written straight into the pinned buffer (no per-chunk vector and copy): the slot's
  // previous chunk, whose copy read it, is complete (collect waited for it).
  ensure(s.host_tasks, count);
  PairTask* const tasks = s.host_tasks.data();
  std::uint64_t bases = 0, words = 0, boundary = 0;
  for (std::size_t k = 0; k < count; ++k) {
    const Item& item = chunk[k];
    PairTask& t = tasks[k];
    t.ref_begin = static_cast<std::uint32_t>(bases);
    t.alt_begin = static_cast<std::uint32_t>(bases + static_cast<std::uint64_t>(item.n));
    t.run_slot_begin = static_cast<std::uint32_t>(bases);  // n + m slots, like the bases
    t.n = item.n;
    t.m = item.m;
    t.columns_per_lane = item.shape.columns_per_lane;
    t.half = item.half;
    bases += static_cast<std::uint64_t>(item.n) + static_cast<std::uint64_t>(item.m);
    if (item.half == 1) {  // the second pair of a 16-bit warp: its first pair's matrix and column
      t.traceback_begin = tasks[k - 1].traceback_begin;
      t.boundary_begin = tasks[k - 1].boundary_begin;
      continue;
    }
    t.traceback_begin = words;
    t.boundary_begin = boundary;
    words += item.words;
    if (item.shape.passes > 1) boundary += static_cast<std::uint64_t>(item.n) + 1;
  }
  ensure(s.bases, bases);
  ensure(s.tasks, count);
  ensure(s.outputs, count);
  ensure(s.traceback, words);
  ensure(s.boundary, std::max<std::uint64_t>(boundary, 1));
  ensure(s.run_slots, bases);
  ensure(s.runs, bases);
  ensure(s.run_total, 1);
  ensure(s.host_bases, bases);
  ensure(s.host_outputs, count);
  ensure(s.host_runs, bases);
  ensure(s.host_run_total, 1);

  oneapi::tbb::parallel_for(
      oneapi::tbb::blocked_range<std::size_t>(0, count, 256),
      [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
        for (std::size_t k = r.begin(); k != r.end(); ++k) {
          const auto ref = pairs.ref(chunk[k].index);
          const auto alt = pairs.alt(chunk[k].index);
          std::memcpy(s.host_bases.data() + tasks[k].ref_begin, ref.data(), ref.size());
          std::memcpy(s.host_bases.data() + tasks[k].alt_begin, alt.data(), alt.size());
        }
      });

  const cudaStream_t stream = s.stream.get();
  check(cudaMemcpyAsync(s.bases.data(), s.host_bases.data(), bases, cudaMemcpyHostToDevice, stream),
        "copy sequences to the GPU");
  check(cudaMemcpyAsync(s.tasks.data(), s.host_tasks.data(), count * sizeof(PairTask),
                        cudaMemcpyHostToDevice, stream),
        "copy pair descriptions to the GPU");
  check(cudaMemsetAsync(s.run_total.data(), 0, sizeof(std::uint32_t), stream), "clear run counter");
  check(cudaEventRecord(s.started.get(), stream), "record event");
  for (std::size_t begin = 0; begin < count;) {  // one launch per kernel and R
    std::size_t end = begin;
    while (end < count && same_launch(chunk[end], chunk[begin])) ++end;
    launch_fill_group(chunk[begin].shape.columns_per_lane, chunk[begin].half >= 0,
                      s.tasks.data() + begin, static_cast<int>(end - begin), s, lp,
                      s.outputs.data() + begin);
    begin = end;
  }
  const unsigned blocks =
      static_cast<unsigned>((count + kTracebackThreads - 1) / kTracebackThreads);
  sw::gpu::sw_traceback_kernel<<<blocks, kTracebackThreads, 0, stream>>>(
      s.tasks.data(), static_cast<int>(count), s.traceback.data(), s.outputs.data(),
      s.run_slots.data(), s.runs.data(), s.run_total.data());
  cuda::check_launch("sw_traceback_kernel");
  check(cudaEventRecord(s.computed.get(), stream), "record event");
  check(cudaMemcpyAsync(s.host_outputs.data(), s.outputs.data(), count * sizeof(PairOutput),
                        cudaMemcpyDeviceToHost, stream),
        "copy alignment ends from the GPU");
  check(cudaMemcpyAsync(s.host_run_total.data(), s.run_total.data(), sizeof(std::uint32_t),
                        cudaMemcpyDeviceToHost, stream),
        "copy run count from the GPU");
  check(cudaEventRecord(s.done.get(), stream), "record event");
  s.chunk = chunk;
}

/// Waits for the slot's chunk and turns its tracebacks into offsets and CIGARs.
void collect(Slot& s, OverhangStrategy strategy, std::span<PairResult> results, SwStats& stats) {
  if (s.chunk.empty()) return;
  const cudaStream_t stream = s.stream.get();
  check(cudaEventSynchronize(s.done.get()), "align pairs on the GPU");
  float milliseconds = 0;
  check(cudaEventElapsedTime(&milliseconds, s.started.get(), s.computed.get()), "read GPU timer");
  stats.gpu_kernel_seconds += milliseconds * 1e-3;
  const std::uint32_t total = s.host_run_total.data()[0];
  check(cudaMemcpyAsync(s.host_runs.data(), s.runs.data(),
                        std::size_t{total} * sizeof(std::uint32_t), cudaMemcpyDeviceToHost, stream),
        "copy CIGAR runs from the GPU");
  check(cudaStreamSynchronize(stream), "copy CIGAR runs from the GPU");

  const std::span<const Item> chunk = s.chunk;
  std::uint64_t substring = 0, sixteen_bit = 0;
  for (std::size_t k = 0; k < chunk.size(); ++k) {
    substring += s.host_outputs.data()[k].substring_offset >= 0;
    sixteen_bit += chunk[k].half >= 0;
  }
  stats.substring_pairs += substring;
  stats.gpu_16_bit_pairs += sixteen_bit;
  stats.gpu_pairs += chunk.size();
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, chunk.size(), 256),
                            [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
                              for (std::size_t k = r.begin(); k != r.end(); ++k) {
                                const PairOutput& o = s.host_outputs.data()[k];
                                PairResult& result = results[chunk[k].index];
                                result.cigar.clear();
                                if (o.substring_offset >= 0) {
                                  result.offset = o.substring_offset;
                                  result.cigar.push_back(cigar_element(
                                      CigarOp::kMatch, static_cast<std::uint32_t>(chunk[k].m)));
                                  continue;
                                }
                                const sw::PathEnds ends{o.end_p1, o.end_p2, o.last_p1, o.last_p2};
                                result.offset = sw::finish_alignment(
                                    strategy, chunk[k].m, ends,
                                    {s.host_runs.data() + o.run_begin, o.run_count}, result.cigar);
                              }
                            });
  s.chunk = {};
}

/// Aligns `items` on the GPU in chunks of at most `budget` traceback bytes (at least one pair).
void align_items(Workspace& w, std::span<const Item> items, const SequencePairs& pairs,
                 const LaunchParameters& lp, std::uint64_t budget, std::span<PairResult> results,
                 SwStats& stats) {
  for (auto& slot : w.slots) {
    if (!slot) slot = std::make_unique<Slot>();
  }
  // After a failure, nothing may stay in flight or point into this call's plan.
  struct Reset {
    Workspace& w;
    ~Reset() {
      for (auto& slot : w.slots) {
        if (!slot->chunk.empty()) cudaStreamSynchronize(slot->stream.get());
        slot->chunk = {};
      }
    }
  } reset{w};
  std::size_t chunk_number = 0;
  for (std::size_t begin = 0; begin < items.size(); ++chunk_number) {
    // Chunks grow from kFirstChunkPairs (little for the GPU to wait for at the start) and shrink
    // to half of what is left (little for the host to finish after the GPU's last chunk).
    const std::size_t pair_cap =
        std::clamp<std::size_t>(std::min(kFirstChunkPairs << std::min<std::size_t>(chunk_number, 8),
                                         (items.size() - begin) / 2),
                                kFirstChunkPairs, kMaxChunkPairs);
    std::size_t end = begin;
    std::uint64_t bytes = 0, bases = 0;
    while (end < items.size() &&
           (end == begin ||
            (end - begin < pair_cap && bytes + items[end].words * 4 <= budget &&
             bases + static_cast<std::uint64_t>(items[end].n) + items[end].m <= kMaxChunkBases))) {
      bytes += items[end].words * 4;
      bases += static_cast<std::uint64_t>(items[end].n) + items[end].m;
      ++end;
    }
    if (end < items.size() && items[end].half == 1) ++end;  // a 16-bit warp's pairs stay together
    Slot& slot = *w.slots[chunk_number % 2];
    collect(slot, lp.single.strategy, results, stats);  // the chunk before last, if any
    enqueue(slot, items.subspan(begin, end - begin), pairs, lp);
    begin = end;
  }
  collect(*w.slots[chunk_number % 2], lp.single.strategy, results, stats);
  collect(*w.slots[(chunk_number + 1) % 2], lp.single.strategy, results, stats);
}

}  // namespace

struct SwGpuWorkspace {
  Workspace buffers;
};

void SwGpuWorkspaceDeleter::operator()(SwGpuWorkspace* workspace) const { delete workspace; }

SwGpuWorkspacePtr make_sw_gpu_workspace() {
  const auto gpus = detect_gpus();
  if (gpus.empty()) {
    throw Error("smith-waterman: no usable GPU (" + gpu_unavailable_reason() + ")");
  }
  return SwGpuWorkspacePtr(new SwGpuWorkspace);
}

void smith_waterman_cuda(const SequencePairs& pairs, std::span<const std::uint32_t> indices,
                         const SwParameters& parameters, OverhangStrategy strategy,
                         std::span<PairResult> results, SwStats& stats, const SwTuning& tuning,
                         SwGpuWorkspace& workspace) {
  Workspace& w = workspace.buffers;
  const auto start = std::chrono::steady_clock::now();
  const auto since_start = [start] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::uint64_t budget = chunk_budget_bytes(tuning);
  const std::uint64_t pair_limit = pair_limit_bytes(budget, tuning);

  // Pairs the GPU cannot take (too large for the budget, or values outside gpu_values_bounded)
  // get columns per lane 0 in their key and go to the CPU backend.
  const std::size_t count = indices.size();
  PlanBuffers& plan = w.plan;
  plan.reserve(count);
  const std::span<std::uint64_t> keys(plan.keys.data(), count);
  oneapi::tbb::parallel_for(
      oneapi::tbb::blocked_range<std::size_t>(0, count, 4096),
      [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
        for (std::size_t k = r.begin(); k != r.end(); ++k) {
          const std::uint32_t index = indices[k];
          const auto n = static_cast<std::int32_t>(pairs.ref(index).size());
          const auto m = static_cast<std::int32_t>(pairs.alt(index).size());
          const std::uint64_t words = sw::gpu_traceback_words(n, m);
          sw::GpuShape shape = sw::gpu_shape(m);
          if (words * 4 > pair_limit || static_cast<std::uint64_t>(n) + m > kMaxChunkBases ||
              !sw::gpu_values_bounded(n, m, parameters)) {
            shape.columns_per_lane = 0;
          }
          const bool fits_16_bits = shape.columns_per_lane > 0 &&
                                    shape.passes <= sw::kMaxSixteenBitPasses &&
                                    sw::gpu_dual_values_fit(n, m, parameters, strategy);
          keys[k] = sw::plan_key(index, shape, n, words, fits_16_bits);
        }
      });
  const double keyed = since_start();
  sw::sort_plan_keys(keys, {plan.scratch.data(), count});
  const double sorted = since_start();
  std::size_t gpu_begin = 0;
  while (gpu_begin < count && sw::key_columns_per_lane(keys[gpu_begin]) == 0) ++gpu_begin;
  std::vector<std::uint32_t> cpu_indices(gpu_begin);
  for (std::size_t k = 0; k < gpu_begin; ++k) cpu_indices[k] = sw::key_index(keys[k]);

  const std::size_t gpu_count = count - gpu_begin;
  const std::span<const std::uint64_t> ordered(plan.ordered.data(), gpu_count);
  const std::span<const std::int8_t> halves(plan.halves.data(), gpu_count);
  sw::order_for_launches(keys.subspan(gpu_begin), plan.ordered, plan.halves);
  const double launch_ordered = since_start();
  Item* const item_buffer = plan.items.data();
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, gpu_count, 4096),
                            [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
                              for (std::size_t k = r.begin(); k != r.end(); ++k) {
                                Item& item = item_buffer[k];
                                item.index = sw::key_index(ordered[k]);
                                item.n = static_cast<std::int32_t>(pairs.ref(item.index).size());
                                item.m = static_cast<std::int32_t>(pairs.alt(item.index).size());
                                item.shape = sw::gpu_shape(item.m);
                                item.half = halves[k];
                                const std::uint64_t words = sw::gpu_traceback_words(item.n, item.m);
                                item.words =
                                    item.half == 0 ? 2 * words : (item.half == 1 ? 0 : words);
                              }
                            });
  const std::span<const Item> items(item_buffer, gpu_count);

  const double planned = since_start();
  const sw::WavefrontParameters kp{parameters.match, parameters.mismatch, parameters.gap_open,
                                   parameters.gap_extend, strategy};
  const LaunchParameters lp{kp, sw::dual_parameters(kp)};
  // Out of GPU memory (another process took it, or a budget set too high): free everything and
  // retry with a quarter of the budget, a few times, then align on the CPU.
  constexpr int kMemoryRetries = 4;
  const SwStats before = stats;
  for (int attempt = 0;; ++attempt) {
    try {
      align_items(w, items, pairs, lp, budget, results, stats);
      break;
    } catch (const Error& e) {
      const bool cuda_out_of_memory = cudaGetLastError() == cudaErrorMemoryAllocation;
      if (!cuda_out_of_memory && dynamic_cast<const DeviceMemoryExhausted*>(&e) == nullptr) throw;
      for (auto& slot : w.slots) slot.reset();
      const std::uint32_t retries = stats.gpu_memory_retries + 1;
      stats = before;
      stats.gpu_memory_retries = retries;
      if (attempt == kMemoryRetries) {
        for (const Item& item : items) cpu_indices.push_back(item.index);
        stats.gpu_memory_fallback = true;
        break;
      }
      budget /= 4;
    }
  }

  const double aligned = since_start();
  if (!cpu_indices.empty()) {
    stats.substring_pairs +=
        smith_waterman_cpu(pairs, cpu_indices, parameters, strategy, results, tuning);
    stats.cpu_pairs += cpu_indices.size();
  }
  if (tuning.profile) {
    std::fprintf(stderr,
                 "smith-waterman GPU: plan %.4f s (keys %.4f, sort %.4f, launch order %.4f, "
                 "items %.4f), GPU chunks %.4f s (kernels %.4f s), CPU fallback %.4f s, %zu "
                 "pairs\n",
                 planned, keyed, sorted - keyed, launch_ordered - sorted, planned - launch_ordered,
                 aligned - planned, stats.gpu_kernel_seconds, since_start() - aligned,
                 indices.size());
  }
}

}  // namespace gpp::kernels::detail
