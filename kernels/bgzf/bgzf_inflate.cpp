// CPU backend and dispatch of BlockInflater, and inflate() as parts submitted and landed.
#include "kernels/bgzf/bgzf_inflate.hpp"

#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "core/first_failure.hpp"
#include "kernels/bgzf/detail/crc32.hpp"
#include "kernels/bgzf/detail/inflate_backends.hpp"
#include "kernels/bgzf/detail/inflate_block.hpp"

namespace gpp::kernels {

namespace {
constexpr std::size_t kCpuPartsInFlight = 4;

const crc32::Table& crc_table() {
  static const crc32::Table table = [] {
    crc32::Table t{};
    for (std::uint32_t b = 0; b < 256; ++b) t.byte[b] = crc32::byte_step(b);
    crc32::fill_powers(t);
    return t;
  }();
  return table;
}
}  // namespace

// A part submitted to the CPU backend: its streams (and expected CRCs) copied, inflated when it
// lands.
struct BlockInflater::CpuPart {
  std::vector<std::uint8_t> streams;
  std::vector<std::uint64_t> in_offsets;
  std::vector<std::uint32_t> in_sizes, out_sizes, crcs;
};

BlockInflater::BlockInflater(Backend backend, std::size_t max_in_flight) : backend_(backend) {
  if (backend != Backend::kGpu) return;
#if defined(GPP_WITH_CUDA)
  gpu_pipeline_ = detail::make_inflate_pipeline_cuda(gpu_parts_in_flight(max_in_flight));
#else
  throw Error("GPU decompression requested, but this build has no CUDA");
#endif
}

BlockInflater::~BlockInflater() = default;

void BlockInflater::wait_ready() const {
#if defined(GPP_WITH_CUDA)
  if (gpu_pipeline_) detail::inflate_wait_ready_cuda(gpu_pipeline_.get());
#endif
}

bool BlockInflater::ready() const {
#if defined(GPP_WITH_CUDA)
  if (gpu_pipeline_) return detail::inflate_ready_cuda(gpu_pipeline_.get());
#endif
  return true;
}

std::size_t BlockInflater::gpu_parts_in_flight(std::size_t max_in_flight) {
#if defined(GPP_WITH_CUDA)
  return std::clamp<std::size_t>(max_in_flight, 2, detail::inflate_slots_cuda());
#else
  (void)max_in_flight;
  return 0;
#endif
}

std::size_t BlockInflater::in_flight() const {
#if defined(GPP_WITH_CUDA)
  if (gpu_pipeline_) return detail::inflate_slots_cuda(gpu_pipeline_.get());
#endif
  return kCpuPartsInFlight;
}

void BlockInflater::submit(const InflateBatch& part) {
  if (part.count > kPartBlocks)
    throw Error("BlockInflater: a part of more than " + std::to_string(kPartBlocks) + " blocks");
  std::size_t stream_bytes = 0;
  for (std::size_t k = 0; k < part.count; ++k) {
    if (part.out_sizes[k] > kMaxBlockBytes)
      throw Error("BlockInflater: block " + std::to_string(k) + " holds more than 64 KiB");
    stream_bytes += part.in_sizes[k];
  }
  if (stream_bytes > kPartStreamBytes)
    throw Error("BlockInflater: a part's streams exceed its buffer");
#if defined(GPP_WITH_CUDA)
  if (gpu_pipeline_) {
    detail::submit_blocks_cuda(part, gpu_pipeline_.get());
    return;
  }
#endif
  if (cpu_parts_.size() == kCpuPartsInFlight)
    throw Error("BlockInflater: more parts submitted than in_flight()");
  CpuPart copy;
  copy.in_sizes.assign(part.in_sizes, part.in_sizes + part.count);
  copy.out_sizes.assign(part.out_sizes, part.out_sizes + part.count);
  if (part.crcs != nullptr) copy.crcs.assign(part.crcs, part.crcs + part.count);
  for (std::size_t k = 0; k < part.count; ++k) {
    copy.in_offsets.push_back(copy.streams.size());
    const std::uint8_t* stream = part.data + part.in_offsets[k];
    copy.streams.insert(copy.streams.end(), stream, stream + part.in_sizes[k]);
  }
  cpu_parts_.push_back(std::move(copy));
}

std::size_t BlockInflater::land(std::uint8_t* out, const std::uint64_t* out_offsets,
                                const BlockCheck& check) {
#if defined(GPP_WITH_CUDA)
  if (gpu_pipeline_)
    return detail::land_blocks_cuda(out, out_offsets, check, gpu_pipeline_.get(), gpu_seconds_);
#endif
  if (cpu_parts_.empty()) throw Error("BlockInflater: nothing to land");
  const CpuPart part = std::move(cpu_parts_.front());
  cpu_parts_.erase(cpu_parts_.begin());
  const std::size_t count = part.in_sizes.size();
  if (out == nullptr) return count;
  FirstFailure first_bad(count);
  oneapi::tbb::enumerable_thread_specific<inflate::Tables> tables;
  oneapi::tbb::parallel_for(std::size_t{0}, count, [&](std::size_t k) {
    const bool ok =
        inflate::inflate_stream(part.streams.data() + part.in_offsets[k], part.in_sizes[k],
                                out + out_offsets[k], part.out_sizes[k],
                                tables.local()) == inflate::Status::kOk &&
        (part.crcs.empty() ||
         crc32::update(0, out + out_offsets[k], part.out_sizes[k], crc_table()) == part.crcs[k]) &&
        (!check || check(k));
    if (!ok) first_bad.report(k);
  });
  return first_bad.get();
}

std::size_t BlockInflater::inflate(const InflateBatch& batch, const BlockCheck& check) {
  std::vector<std::pair<std::size_t, std::size_t>>
      parts;  // first block and count, in submission order
  std::size_t landed = 0;
  std::size_t first_bad = batch.count;
  const auto land_oldest = [&] {
    // Plain names: clang 14 cannot capture structured bindings in the lambda below.
    const std::size_t first = parts[landed].first;
    const std::size_t count = parts[landed].second;
    ++landed;
    const std::size_t bad = land(batch.out, batch.out_offsets + first,
                                 [&](std::size_t k) { return !check || check(first + k); });
    if (bad < count) first_bad = std::min(first_bad, first + bad);
  };
  for (std::size_t first = 0; first < batch.count;) {
    std::size_t end = first, stream_bytes = 0;
    for (; end < batch.count && end - first < kPartBlocks &&
           stream_bytes + batch.in_sizes[end] <= kPartStreamBytes;
         ++end) {
      stream_bytes += batch.in_sizes[end];
    }
    if (end == first)
      throw Error("BlockInflater: block " + std::to_string(first) +
                  " has a stream larger than a part");
    if (parts.size() - landed == in_flight()) land_oldest();
    submit({.data = batch.data,
            .in_offsets = batch.in_offsets + first,
            .in_sizes = batch.in_sizes + first,
            .count = end - first,
            .out_sizes = batch.out_sizes + first,
            .crcs = batch.crcs != nullptr ? batch.crcs + first : nullptr});
    parts.emplace_back(first, end - first);
    first = end;
  }
  while (landed < parts.size()) land_oldest();
  return first_bad;
}

}  // namespace gpp::kernels
