// CUDA backend of the covariate counter: the reference on the device, the chunk uploads (two slots
// staged through page-locked memory), and the dense tables across chunks; the counting itself is in
// bqsr_count_dense_cuda.cu and bqsr_count_sort_cuda.cu.
#include <algorithm>

#include "kernels/bqsr/cuda/bqsr_count_cuda.cuh"
#include "kernels/bqsr/detail/backends.hpp"
#include "kernels/device/cuda/cuda_check.cuh"
#include "kernels/device/cuda/cuda_staging.cuh"

namespace gpp::kernels::bqsr::detail {

class CudaCovariateCounter {
 public:
  CudaCovariateCounter(const CountingShape& shape, std::size_t contig_count, CountingMethod method)
      : shape_(shape),
        method_(method),
        contig_bases_(contig_count),
        contig_pointer_(std::max<std::size_t>(contig_count, 1)),
        contig_length_(std::max<std::size_t>(contig_count, 1)) {
    cuda::check(cudaMemsetAsync(contig_pointer_.data(), 0, contig_pointer_.bytes(), stream_.get()),
                "clear the contig table");
    cuda::check(cudaMemsetAsync(contig_length_.data(), 0, contig_length_.bytes(), stream_.get()),
                "clear the contig table");
    host_counts_ = empty_counts(shape);
    if (method_ == CountingMethod::kDense) {
      auto zeroed = [&](std::size_t n) {
        cuda::DeviceBuffer<unsigned long long> b(n);
        cuda::check(cudaMemsetAsync(b.data(), 0, b.bytes(), stream_.get()), "zero count tables");
        return b;
      };
      quality_observations_ = zeroed(host_counts_.quality_observations.size());
      quality_errors_ = zeroed(host_counts_.quality_errors.size());
      context_observations_ = zeroed(host_counts_.context_observations.size());
      context_errors_ = zeroed(host_counts_.context_errors.size());
      cycle_observations_ = zeroed(host_counts_.cycle_observations.size());
      cycle_errors_ = zeroed(host_counts_.cycle_errors.size());
    }
    cuda::check(cudaStreamSynchronize(stream_.get()), "set up the counts on the GPU");
  }

  // Rare (once per contig): waits for the chunks in flight, so the table is never read while it
  // changes.
  void set_contig(std::size_t t, std::span<const char> bases) {
    for (Slot& slot : slots_)
      cuda::check(cudaStreamSynchronize(slot.stream.get()), "count covariates on the GPU");
    contig_bases_[t] = cuda::DeviceBuffer<char>(std::max<std::size_t>(bases.size(), 1));
    cuda::copy_to_device(contig_bases_[t].data(), bases.data(), bases.size(), stream_);
    const char* pointer = contig_bases_[t].data();
    const auto length = static_cast<std::int64_t>(bases.size());
    cuda::check(cudaMemcpyAsync(contig_pointer_.data() + t, &pointer, sizeof pointer,
                                cudaMemcpyHostToDevice, stream_.get()),
                "copy the contig table to the GPU");
    cuda::check(cudaMemcpyAsync(contig_length_.data() + t, &length, sizeof length,
                                cudaMemcpyHostToDevice, stream_.get()),
                "copy the contig table to the GPU");
    cuda::check(cudaStreamSynchronize(stream_.get()), "copy the reference to the GPU");
  }

  void count(const CountingChunk& chunk) {
    if (chunk.size() == 0) return;
    // Two slots: this chunk's upload overlaps the previous chunk's kernel.
    Slot& slot = slots_[next_slot_];
    next_slot_ ^= 1;
    cuda::check(cudaStreamSynchronize(slot.stream.get()), "count covariates on the GPU");
    cuda::StagedUpload& up = slot.upload;
    const std::size_t bases = up.add(chunk.bases), quals = up.add(chunk.quals),
                      first_base = up.add(chunk.first_base), length = up.add(chunk.length),
                      read_group = up.add(chunk.read_group), strand = up.add(chunk.strand),
                      contig = up.add(chunk.contig), ref_start = up.add(chunk.ref_start),
                      cigar_offset = up.add(chunk.cigar_offset), cigar = up.add(chunk.cigar),
                      known_offset = up.add(chunk.known_offset), known = up.add(chunk.known);
    up.upload(slot.stream);
    const DeviceChunk device_chunk{up.device<char>(bases),
                                   up.device<std::uint8_t>(quals),
                                   up.device<std::uint64_t>(first_base),
                                   up.device<std::uint32_t>(length),
                                   up.device<std::int32_t>(read_group),
                                   up.device<std::uint8_t>(strand),
                                   up.device<std::int32_t>(contig),
                                   up.device<std::int64_t>(ref_start),
                                   up.device<std::uint32_t>(cigar_offset),
                                   up.device<std::uint32_t>(cigar),
                                   up.device<std::uint32_t>(known_offset),
                                   up.device<std::uint32_t>(known),
                                   chunk.size()};
    const DeviceReference reference{contig_pointer_.data(), contig_length_.data()};
    if (method_ == CountingMethod::kDense) {
      const DenseTables tables{quality_observations_.data(), quality_errors_.data(),
                               context_observations_.data(), context_errors_.data(),
                               cycle_observations_.data(),   cycle_errors_.data()};
      count_dense_chunk(shape_, device_chunk, reference, tables, slot.stream.get());
    } else {
      count_sorted_chunk(shape_, device_chunk, reference, chunk.bases.size(), slot.stream.get(),
                         host_counts_);
    }
  }

  CovariateCounts finish() {
    for (Slot& slot : slots_)
      cuda::check(cudaStreamSynchronize(slot.stream.get()), "count covariates on the GPU");
    if (method_ == CountingMethod::kDense) {
      copy_back(quality_observations_, host_counts_.quality_observations);
      copy_back(quality_errors_, host_counts_.quality_errors);
      copy_back(context_observations_, host_counts_.context_observations);
      copy_back(context_errors_, host_counts_.context_errors);
      copy_back(cycle_observations_, host_counts_.cycle_observations);
      copy_back(cycle_errors_, host_counts_.cycle_errors);
    }
    cuda::check(cudaStreamSynchronize(stream_.get()), "count covariates on the GPU");
    return std::move(host_counts_);
  }

 private:
  void copy_back(const cuda::DeviceBuffer<unsigned long long>& from,
                 std::vector<std::uint64_t>& to) {
    if (to.empty()) return;
    cuda::check(cudaMemcpyAsync(to.data(), from.data(), from.bytes(), cudaMemcpyDeviceToHost,
                                stream_.get()),
                "copy counts from the GPU");
  }

  CountingShape shape_;
  CountingMethod method_;
  cuda::Stream stream_;
  std::vector<cuda::DeviceBuffer<char>> contig_bases_;  // per contig, once given
  cuda::DeviceBuffer<const char*> contig_pointer_;      // the device's table of them
  cuda::DeviceBuffer<std::int64_t> contig_length_;
  CovariateCounts host_counts_;
  cuda::DeviceBuffer<unsigned long long> quality_observations_, quality_errors_;
  cuda::DeviceBuffer<unsigned long long> context_observations_, context_errors_;
  cuda::DeviceBuffer<unsigned long long> cycle_observations_, cycle_errors_;
  struct Slot {
    cuda::Stream stream;
    cuda::StagedUpload upload;
  };
  Slot slots_[2];
  int next_slot_ = 0;
};

CudaCovariateCounter* make_cuda_counter(const CountingShape& shape, std::size_t contig_count,
                                        CountingMethod method) {
  return std::make_unique<CudaCovariateCounter>(shape, contig_count, method).release();
}

void set_contig_cuda(CudaCovariateCounter& counter, std::size_t t, std::span<const char> bases) {
  counter.set_contig(t, bases);
}

void count_chunk_cuda(CudaCovariateCounter& counter, const CountingChunk& chunk) {
  counter.count(chunk);
}

CovariateCounts finish_cuda(CudaCovariateCounter& counter) { return counter.finish(); }

void destroy_cuda_counter(CudaCovariateCounter* counter) {
  std::unique_ptr<CudaCovariateCounter> owned(counter);
}

}  // namespace gpp::kernels::bqsr::detail