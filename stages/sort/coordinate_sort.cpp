#include "stages/sort/coordinate_sort.hpp"

#include <oneapi/tbb/parallel_for.h>

#include "kernels/sort/sort_by_key.hpp"

namespace gpp::stages::sort {

io::Column<std::uint64_t> coordinate_keys(const io::ReadBatch& reads) {
  const std::size_t n = reads.size();
  io::Column<std::uint64_t> keys(n);  // first touched in parallel
  oneapi::tbb::parallel_for(
      oneapi::tbb::blocked_range<std::size_t>(0, n, 1 << 14),
      [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
        for (std::size_t i = r.begin(); i != r.end(); ++i) {
          // samtools compares tid as unsigned (so -1 sorts last), then pos + 1, then bam_is_rev.
          const std::uint64_t tid =
              reads.tid[i] < 0 ? kNoReference : static_cast<std::uint64_t>(reads.tid[i]);
          const std::uint64_t pos1 = static_cast<std::uint64_t>(reads.pos[i] + 1) & 0xFFFFFFFFu;
          const std::uint64_t reverse = (reads.flag[i] & io::flag::kReverse) ? 1 : 0;
          keys[i] = tid << 33 | pos1 << 1 | reverse;
        }
      });
  return keys;
}

std::vector<std::uint32_t> coordinate_order(const io::ReadBatch& reads, kernels::Backend backend) {
  return kernels::stable_sort_permutation(coordinate_keys(reads), backend);
}

}  // namespace gpp::stages::sort
