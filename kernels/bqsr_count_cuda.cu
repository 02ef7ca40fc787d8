// CUDA backend of the covariate counter: the reference on the device, the chunk uploads, and the
// dense tables across chunks; the counting itself is in bqsr_count_dense_cuda.cu and
// bqsr_count_sort_cuda.cu.
#include <algorithm>

#include "kernels/bqsr_count_cuda.cuh"
#include "kernels/cuda_check.cuh"

namespace gpp::kernels::bqsr::detail {

namespace {

template <typename T>
void reserve(cuda::DeviceBuffer<T>& buffer, std::size_t count) {
  if (buffer.size() < count) buffer = cuda::DeviceBuffer<T>(count + count / 4);
}

}  // namespace

class CudaCovariateCounter {
 public:
  CudaCovariateCounter(const CountingShape& shape, std::span<const std::span<const char>> contigs,
                       CountingMethod method)
      : shape_(shape), method_(method) {
    std::vector<std::int64_t> offset, length;
    std::int64_t total = 0;
    for (const auto& contig : contigs) {
      offset.push_back(total);
      length.push_back(static_cast<std::int64_t>(contig.size()));
      total += static_cast<std::int64_t>(contig.size());
    }
    reference_ =
        cuda::DeviceBuffer<char>(static_cast<std::size_t>(std::max<std::int64_t>(total, 1)));
    for (std::size_t t = 0; t < contigs.size(); ++t)
      cuda::copy_to_device(reference_.data() + offset[t], contigs[t].data(), contigs[t].size(),
                           stream_);
    contig_offset_ = cuda::to_device(std::span<const std::int64_t>(offset));
    contig_length_ = cuda::to_device(std::span<const std::int64_t>(length));
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
  }

  void count(const CountingChunk& chunk) {
    if (chunk.size() == 0) return;
    reserve(bases_, chunk.bases.size());
    reserve(quals_, chunk.quals.size());
    reserve(first_base_, chunk.size());
    reserve(length_, chunk.size());
    reserve(read_group_, chunk.size());
    reserve(strand_, chunk.size());
    reserve(contig_, chunk.size());
    reserve(ref_start_, chunk.size());
    reserve(cigar_offset_, chunk.size() + 1);
    reserve(cigar_, std::max<std::size_t>(chunk.cigar.size(), 1));
    reserve(known_offset_, chunk.size() + 1);
    reserve(known_, std::max<std::size_t>(chunk.known.size(), 1));
    cuda::copy_to_device(bases_.data(), chunk.bases.data(), chunk.bases.size(), stream_);
    cuda::copy_to_device(quals_.data(), chunk.quals.data(), chunk.quals.size(), stream_);
    cuda::copy_to_device(first_base_.data(), chunk.first_base.data(), chunk.size(), stream_);
    cuda::copy_to_device(length_.data(), chunk.length.data(), chunk.size(), stream_);
    cuda::copy_to_device(read_group_.data(), chunk.read_group.data(), chunk.size(), stream_);
    cuda::copy_to_device(strand_.data(), chunk.strand.data(), chunk.size(), stream_);
    cuda::copy_to_device(contig_.data(), chunk.contig.data(), chunk.size(), stream_);
    cuda::copy_to_device(ref_start_.data(), chunk.ref_start.data(), chunk.size(), stream_);
    cuda::copy_to_device(cigar_offset_.data(), chunk.cigar_offset.data(), chunk.size() + 1,
                         stream_);
    cuda::copy_to_device(cigar_.data(), chunk.cigar.data(), chunk.cigar.size(), stream_);
    cuda::copy_to_device(known_offset_.data(), chunk.known_offset.data(), chunk.size() + 1,
                         stream_);
    cuda::copy_to_device(known_.data(), chunk.known.data(), chunk.known.size(), stream_);
    const DeviceChunk device_chunk{bases_.data(),  quals_.data(),        first_base_.data(),
                                   length_.data(), read_group_.data(),   strand_.data(),
                                   contig_.data(), ref_start_.data(),    cigar_offset_.data(),
                                   cigar_.data(),  known_offset_.data(), known_.data(),
                                   chunk.size()};
    const DeviceReference reference{reference_.data(), contig_offset_.data(),
                                    contig_length_.data()};
    if (method_ == CountingMethod::kDense) {
      const DenseTables tables{quality_observations_.data(), quality_errors_.data(),
                               context_observations_.data(), context_errors_.data(),
                               cycle_observations_.data(),   cycle_errors_.data()};
      count_dense_chunk(shape_, device_chunk, reference, tables, stream_.get());
    } else {
      count_sorted_chunk(shape_, device_chunk, reference, chunk.bases.size(), stream_.get(),
                         host_counts_);
    }
  }

  CovariateCounts finish() {
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
  cuda::DeviceBuffer<char> reference_;
  cuda::DeviceBuffer<std::int64_t> contig_offset_, contig_length_;
  CovariateCounts host_counts_;
  cuda::DeviceBuffer<unsigned long long> quality_observations_, quality_errors_;
  cuda::DeviceBuffer<unsigned long long> context_observations_, context_errors_;
  cuda::DeviceBuffer<unsigned long long> cycle_observations_, cycle_errors_;
  cuda::DeviceBuffer<char> bases_;
  cuda::DeviceBuffer<std::uint8_t> quals_, strand_;
  cuda::DeviceBuffer<std::uint64_t> first_base_;
  cuda::DeviceBuffer<std::uint32_t> length_, cigar_offset_, cigar_, known_offset_, known_;
  cuda::DeviceBuffer<std::int32_t> read_group_, contig_;
  cuda::DeviceBuffer<std::int64_t> ref_start_;
};

CudaCovariateCounter* make_cuda_counter(const CountingShape& shape,
                                        std::span<const std::span<const char>> contigs,
                                        CountingMethod method) {
  return std::make_unique<CudaCovariateCounter>(shape, contigs, method).release();
}

void count_chunk_cuda(CudaCovariateCounter& counter, const CountingChunk& chunk) {
  counter.count(chunk);
}

CovariateCounts finish_cuda(CudaCovariateCounter& counter) { return counter.finish(); }

void destroy_cuda_counter(CudaCovariateCounter* counter) {
  std::unique_ptr<CudaCovariateCounter> owned(counter);
}

}  // namespace gpp::kernels::bqsr::detail