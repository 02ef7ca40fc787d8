// ApplyBQSR aux rewrite; see aux_rewrite.hpp. Two parallel passes: the size of every rewritten
// record, then (after a prefix sum) the bytes at their final place.
#include "stages/bqsr/aux_rewrite.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_scan.h>

#include <cstring>

#include "io/reads/aux_fields.hpp"

namespace gpp::stages::bqsr {

namespace {

/// Rewrites the aux bytes of one record to `out` (when not null); returns their size.
std::size_t rewrite_record(std::span<const std::uint8_t> aux,
                           std::span<const std::uint8_t> original_quals, bool emit_oq,
                           std::uint8_t* out) {
  const std::uint8_t* p = aux.data();
  const std::uint8_t* end = aux.data() + aux.size();
  std::size_t written = 0;
  auto put = [&](const std::uint8_t* from, std::size_t size) {
    if (out != nullptr) std::memcpy(out + written, from, size);
    written += size;
  };
  bool has_oq = false;
  while (p < end) {
    const std::size_t size = io::aux_field_size(p, end);
    if (size == 0) {  // malformed tail: keep it as it is
      put(p, static_cast<std::size_t>(end - p));
      break;
    }
    const bool bi_bd = p[0] == 'B' && (p[1] == 'I' || p[1] == 'D');
    if (p[0] == 'O' && p[1] == 'Q') has_oq = true;
    if (!bi_bd) put(p, size);
    p += size;
  }
  if (emit_oq && !has_oq) {
    if (out != nullptr) {
      std::uint8_t* o = out + written;
      *o++ = 'O';
      *o++ = 'Q';
      *o++ = 'Z';
      for (const std::uint8_t q : original_quals) *o++ = static_cast<std::uint8_t>(q + 33);
      *o = 0;
    }
    written += 4 + original_quals.size();
  }
  return written;
}

}  // namespace

void rewrite_aux_fields(const io::ReadBatch& reads, bool emit_original_quals,
                        io::Column<std::uint8_t>& aux, io::Column<std::uint64_t>& aux_offset) {
  const std::size_t n = reads.size();
  auto emit = [&](std::size_t i) {
    const std::span<const std::uint8_t> original = reads.read_qual(i);
    return emit_original_quals && !original.empty() && original[0] != 0xFF;
  };
  aux_offset.resize(n + 1);
  aux_offset[0] = 0;
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, n, 4096),
                            [&](const oneapi::tbb::blocked_range<std::size_t>& range) {
                              for (std::size_t i = range.begin(); i != range.end(); ++i)
                                aux_offset[i + 1] = rewrite_record(
                                    reads.read_aux(i), reads.read_qual(i), emit(i), nullptr);
                            });
  oneapi::tbb::parallel_scan(
      oneapi::tbb::blocked_range<std::size_t>(1, n + 1, 1 << 16), std::uint64_t{0},
      [&](const oneapi::tbb::blocked_range<std::size_t>& range, std::uint64_t sum,
          bool final_pass) {
        for (std::size_t i = range.begin(); i != range.end(); ++i) {
          sum += aux_offset[i];
          if (final_pass) aux_offset[i] = sum;
        }
        return sum;
      },
      [](std::uint64_t a, std::uint64_t b) { return a + b; });
  aux.resize(aux_offset[n]);
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, n, 4096),
                            [&](const oneapi::tbb::blocked_range<std::size_t>& range) {
                              for (std::size_t i = range.begin(); i != range.end(); ++i)
                                rewrite_record(reads.read_aux(i), reads.read_qual(i), emit(i),
                                               aux.data() + aux_offset[i]);
                            });
}

}  // namespace gpp::stages::bqsr
