// Read transforms and coordinate arithmetic of BaseRecalibrator; see read_transform.hpp.
#include "stages/bqsr/read_transform.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/cigar.hpp"
#include "core/error.hpp"
#include "io/reads/aux_fields.hpp"

namespace gpp::stages::bqsr {

void substitute_original_qualities(const io::ReadBatch& reads, std::size_t i, std::uint8_t* quals) {
  const std::size_t length = reads.seq_length(i);
  const std::uint8_t* oq = io::find_aux_field(reads.read_aux(i), "OQ");
  if (oq == nullptr || oq[0] != 'Z') return;
  const std::size_t size = std::strlen(reinterpret_cast<const char*>(oq + 1));
  if (size != length) {
    throw ReadError("read " + std::string(reads.read_name(i)) + " has an OQ tag of " +
                    std::to_string(size) + " qualities for " + std::to_string(length) + " bases");
  }
  for (std::size_t k = 0; k < length; ++k) quals[k] = static_cast<std::uint8_t>(oq[1 + k] - 33);
}

void substitute_original_qualities(io::ReadBatch& reads) {
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, reads.size(), 4096),
                            [&](const oneapi::tbb::blocked_range<std::size_t>& range) {
                              for (std::size_t i = range.begin(); i != range.end(); ++i) {
                                substitute_original_qualities(
                                    reads, i, reads.qual.data() + reads.seq_offset[i]);
                              }
                            });
}

std::vector<std::uint32_t> consolidate_cigar(std::span<const std::uint32_t> cigar) {
  std::vector<std::uint32_t> out;
  for (const std::uint32_t packed : cigar) {
    if (cigar_length(packed) == 0) continue;
    if (!out.empty() && cigar_op(out.back()) == cigar_op(packed)) {
      out.back() = cigar_element(cigar_op(packed), cigar_length(out.back()) + cigar_length(packed));
    } else {
      out.push_back(packed);
    }
  }
  return out;
}

namespace {

bool is_clip(CigarOp op) { return is_clipping(op); }

/// Reference span (1-based last base) of the aligned part of `cigar` starting at `start0`.
std::int64_t alignment_end_1based(std::int64_t start0, std::span<const std::uint32_t> cigar) {
  std::int64_t end = start0;
  for (const std::uint32_t packed : cigar) {
    if (consumes_reference(cigar_op(packed))) end += cigar_length(packed);
  }
  return end;  // 0-based exclusive == 1-based inclusive
}

std::int64_t soft_start_1based(std::int64_t start0, std::span<const std::uint32_t> cigar) {
  std::int64_t soft_start = start0 + 1;
  for (const std::uint32_t packed : cigar) {
    if (cigar_op(packed) == CigarOp::kSoftClip) {
      soft_start -= cigar_length(packed);
    } else if (cigar_op(packed) != CigarOp::kHardClip) {
      break;
    }
  }
  return soft_start;
}

/// Working state of a read being hard-clipped: CIGAR without H operations.
struct ClipState {
  int first = 0;
  int length = 0;
  std::int64_t start = 0;  // 0-based
  std::vector<std::uint32_t> cigar;
  bool leading_hard_clip = false;
  bool trailing_hard_clip = false;
};

/// Removes the first `count` read bases (soft clips included) and the deletions that then lead
/// the CIGAR; the alignment start moves past the reference bases they covered.
void clip_left(ClipState& read, int count) {
  std::vector<std::uint32_t> out;
  int remaining = count;
  std::int64_t shift = 0;
  std::size_t k = 0;
  for (; k < read.cigar.size() && remaining > 0; ++k) {
    const CigarOp op = cigar_op(read.cigar[k]);
    const int length = static_cast<int>(cigar_length(read.cigar[k]));
    if (consumes_query(op)) {
      const int taken = std::min(length, remaining);
      remaining -= taken;
      if (consumes_reference(op)) shift += taken;
      if (taken < length) {
        out.push_back(cigar_element(op, static_cast<std::uint32_t>(length - taken)));
        ++k;
        break;
      }
    } else if (consumes_reference(op)) {
      shift += length;
    }
  }
  out.insert(out.end(), read.cigar.begin() + static_cast<std::ptrdiff_t>(k), read.cigar.end());
  std::size_t lead = 0;
  while (lead < out.size() &&
         (cigar_op(out[lead]) == CigarOp::kDeletion || cigar_op(out[lead]) == CigarOp::kSkip)) {
    shift += cigar_length(out[lead]);
    ++lead;
  }
  out.erase(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(lead));
  read.cigar = std::move(out);
  read.first += count;
  read.length -= count;
  read.start += shift;
}

/// Removes the last `count` read bases and the deletions that then end the CIGAR.
void clip_right(ClipState& read, int count) {
  int remaining = count;
  while (!read.cigar.empty() && remaining > 0) {
    const CigarOp op = cigar_op(read.cigar.back());
    const int length = static_cast<int>(cigar_length(read.cigar.back()));
    if (consumes_query(op)) {
      const int taken = std::min(length, remaining);
      remaining -= taken;
      if (taken < length) {
        read.cigar.back() = cigar_element(op, static_cast<std::uint32_t>(length - taken));
        break;
      }
    }
    read.cigar.pop_back();
  }
  while (!read.cigar.empty() && (cigar_op(read.cigar.back()) == CigarOp::kDeletion ||
                                 cigar_op(read.cigar.back()) == CigarOp::kSkip)) {
    read.cigar.pop_back();
  }
  read.length -= count;
}

/// Hard-clips read offsets [start, stop]; one end must be the read's end (ClippingOp.hardClip).
void hard_clip(ClipState& read, int start, int stop) {
  if (start == 0 && stop == read.length - 1) {
    read.length = 0;
    read.cigar.clear();
  } else if (start == 0) {
    clip_left(read, stop + 1);
    read.leading_hard_clip = true;
  } else {
    clip_right(read, stop - start + 1);
    read.trailing_hard_clip = true;
  }
}

/// ReadUtils.hasWellDefinedFragmentSize and getAdaptorBoundary (1-based), or 0 when undefined.
std::int64_t adaptor_boundary(const io::ReadBatch& reads, std::size_t i, std::int64_t end_1based) {
  const std::uint16_t f = reads.flag[i];
  const std::int64_t tlen = reads.tlen[i];
  if (tlen == 0 || !(f & io::flag::kPaired) || (f & io::flag::kUnmapped) ||
      (f & io::flag::kMateUnmapped))
    return 0;
  const bool reverse = f & io::flag::kReverse;
  if (reverse == static_cast<bool>(f & io::flag::kMateReverse)) return 0;
  const std::int64_t start = reads.pos[i] + 1;
  const std::int64_t mate_start = reads.mate_pos[i] + 1;
  if (reverse) {
    if (!(end_1based > mate_start)) return 0;
    return mate_start - 1;
  }
  if (!(start <= mate_start + tlen)) return 0;
  return start + std::llabs(tlen);
}

}  // namespace

int read_coordinate_for_reference(std::int64_t soft_start, std::span<const std::uint32_t> cigar,
                                  std::int64_t ref, ClippingTail tail, bool allow_not_reached) {
  auto not_reached = [&]() -> int {
    if (allow_not_reached) return kGoalNotReached;
    throw Error("reference coordinate " + std::to_string(ref) + " is not covered by the read");
  };
  const std::int64_t goal = ref - soft_start;
  if (goal < 0) return not_reached();
  std::int64_t read_bases = 0;
  std::int64_t ref_bases = 0;
  bool reached = goal == 0;
  bool before_or_in_deletion = false;
  std::size_t k = 0;
  while (!reached && k < cigar.size()) {
    const CigarOp op = cigar_op(cigar[k]);
    const std::int64_t length = cigar_length(cigar[k]);
    ++k;
    std::int64_t shift = 0;
    if (consumes_reference(op) || op == CigarOp::kSoftClip) {
      shift = (ref_bases + length < goal) ? length : goal - ref_bases;
      ref_bases += shift;
    }
    reached = ref_bases == goal;
    if (!reached && consumes_query(op)) read_bases += length;
    if (reached) {
      const bool ends_within = shift < length;
      if (!ends_within && k == cigar.size()) return not_reached();
      bool inside_deletion = false;
      bool just_before_deletion = false;
      if (ends_within) {
        inside_deletion = op == CigarOp::kDeletion || op == CigarOp::kSkip;
      } else {
        CigarOp next = cigar_op(cigar[k]);
        if (next == CigarOp::kInsertion) {
          read_bases += cigar_length(cigar[k]);
          ++k;
          if (k == cigar.size()) return not_reached();
          next = cigar_op(cigar[k]);
        }
        just_before_deletion = next == CigarOp::kDeletion || next == CigarOp::kSkip;
      }
      before_or_in_deletion = inside_deletion || just_before_deletion;
      if (!before_or_in_deletion && consumes_query(op)) {
        read_bases += shift;
      } else if (just_before_deletion && consumes_query(op)) {
        read_bases += shift - 1;
      } else if (before_or_in_deletion) {
        read_bases -= 1;
      }
    }
  }
  if (!reached) return not_reached();
  int coordinate = static_cast<int>(read_bases);
  if (before_or_in_deletion && tail == ClippingTail::kRight) ++coordinate;
  if (coordinate == 0 && tail == ClippingTail::kLeft) {
    // A leading insertion (after any clips) shares its reference position with the next base.
    int read_length = 0;
    for (const std::uint32_t packed : cigar) {
      if (consumes_query(cigar_op(packed))) read_length += static_cast<int>(cigar_length(packed));
    }
    for (const std::uint32_t packed : cigar) {
      if (cigar_op(packed) == CigarOp::kInsertion) {
        coordinate = std::min(static_cast<int>(cigar_length(packed)), read_length - 1);
        break;
      }
      if (!is_clip(cigar_op(packed))) break;
    }
  }
  return coordinate;
}

ClippedRead clip_for_recalibration(const io::ReadBatch& reads, std::size_t i) {
  ClipState read;
  read.length = static_cast<int>(reads.seq_length(i));
  read.start = reads.pos[i];
  const std::vector<std::uint32_t> consolidated = consolidate_cigar(reads.read_cigar(i));
  for (const std::uint32_t packed : consolidated) {
    if (cigar_op(packed) != CigarOp::kHardClip) read.cigar.push_back(packed);
  }
  read.leading_hard_clip =
      !consolidated.empty() && cigar_op(consolidated.front()) == CigarOp::kHardClip;
  read.trailing_hard_clip =
      !consolidated.empty() && cigar_op(consolidated.back()) == CigarOp::kHardClip;
  // ReadClipper.hardClipAdaptorSequence: clip what lies beyond the fragment.
  const std::int64_t end = alignment_end_1based(read.start, read.cigar);
  const std::int64_t boundary = adaptor_boundary(reads, i, end);
  if (boundary != 0 && boundary >= read.start + 1 && boundary <= end) {
    const std::int64_t soft_start = soft_start_1based(read.start, read.cigar);
    if (reads.flag[i] & io::flag::kReverse) {
      const int stop = read_coordinate_for_reference(soft_start, read.cigar, boundary,
                                                     ClippingTail::kLeft, false);
      hard_clip(read, 0, stop);
    } else {
      const int start = read_coordinate_for_reference(soft_start, read.cigar, boundary,
                                                      ClippingTail::kRight, false);
      hard_clip(read, start, read.length - 1);
    }
  }
  // ReadClipper.hardClipSoftClippedBases.
  if (read.length > 0 && !read.cigar.empty() &&
      cigar_op(read.cigar.front()) == CigarOp::kSoftClip) {
    hard_clip(read, 0, static_cast<int>(cigar_length(read.cigar.front())) - 1);
  }
  if (read.length > 0 && !read.cigar.empty() && cigar_op(read.cigar.back()) == CigarOp::kSoftClip) {
    const int count = static_cast<int>(cigar_length(read.cigar.back()));
    hard_clip(read, read.length - count, read.length - 1);
  }
  return {read.first,
          read.length,
          read.start,
          std::move(read.cigar),
          read.leading_hard_clip,
          read.trailing_hard_clip};
}

void known_site_ranges(const ClippedRead& read, const KnownSiteIndex& sites,
                       std::vector<std::pair<int, int>>& ranges) {
  ranges.clear();
  const std::int64_t soft_start = read.start + 1;  // no soft clips remain
  const std::int64_t soft_end = alignment_end_1based(read.start, read.cigar);
  sites.overlapping(soft_start, soft_end, [&](const io::VariantSpan& site) {
    const std::int64_t site_start = site.start + 1;  // 1-based inclusive
    const std::int64_t site_end = site.end;
    int from = read_coordinate_for_reference(soft_start, read.cigar, site_start,
                                             ClippingTail::kLeft, true);
    if (from == kGoalNotReached) from = 0;
    int to =
        read_coordinate_for_reference(soft_start, read.cigar, site_end, ClippingTail::kLeft, true);
    if (to == kGoalNotReached) to = read.length;
    if (from > read.length) from = to = read.length;
    const int lo = std::max(0, from);
    const int hi = std::min(read.length, to + 1);
    if (lo < hi) ranges.emplace_back(lo, hi);
  });
}

void known_site_mask(const ClippedRead& read, const KnownSiteIndex& sites,
                     std::vector<std::uint8_t>& mask) {
  thread_local std::vector<std::pair<int, int>> ranges;
  known_site_ranges(read, sites, ranges);
  mask.assign(static_cast<std::size_t>(read.length), 0);
  for (const auto& [lo, hi] : ranges) std::fill(mask.begin() + lo, mask.begin() + hi, 1);
}

}  // namespace gpp::stages::bqsr
