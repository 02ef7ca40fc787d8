// GATK ReadClipper / ClippingOp / CigarUtils clipping rules (see the header).
#include "stages/call/read_clipping.hpp"

#include <algorithm>
#include <array>
#include <string>

#include "core/error.hpp"
#include "stages/call/cigar_edit.hpp"
#include "stages/call/read_geometry.hpp"

namespace gpp::stages::call {

namespace {

/// One ClippingOp: read bases [start, stop].
struct ClipRange {
  std::int64_t start;
  std::int64_t stop;
};

enum class Representation { kHardClip, kSoftClip, kRevertSoftClips };

std::int64_t length_of(const CallRead& read) {
  return static_cast<std::int64_t>(read.bases.size());
}

bool has_indel_qualities(const CallRead& read) {
  return !read.insertion_quals.empty() || !read.deletion_quals.empty();
}

/// The slice [from, from + count) of BI or BD, GATK's default 45s standing in for a missing array.
std::vector<std::uint8_t> slice_indel_qualities(const std::vector<std::uint8_t>& quals,
                                                std::int64_t from, std::int64_t count) {
  if (quals.empty()) {
    return std::vector<std::uint8_t>(static_cast<std::size_t>(count), kDefaultIndelQuality);
  }
  return {quals.begin() + from, quals.begin() + from + count};
}

/// Java compares qualities as signed bytes.
bool at_most(std::uint8_t quality, std::uint8_t limit) {
  return static_cast<std::int8_t>(quality) <= static_cast<std::int8_t>(limit);
}

/// ClippingOp.applySoftClipBases.
CallRead soft_clip_range(CallRead read, ClipRange range) {
  if (is_unmapped(read)) throw Error("read " + read.name + ": cannot soft-clip an unmapped read");
  const std::int64_t length = length_of(read);
  if (length <= 2) return read;  // GATK issue #2022: never soft-clip every base
  const std::int64_t stop = std::min(range.stop, range.start + length - 2);
  if (range.start > 0 && stop != length - 1) {
    throw Error("read " + read.name + ": cannot soft-clip the middle of a read");
  }
  std::vector<std::uint32_t> cigar =
      clip_cigar(read.cigar, range.start, stop + 1, CigarOp::kSoftClip);
  // GATK shifts the start by the requested stop, not the reduced one.
  if (range.start == 0) read.start += alignment_start_shift(read.cigar, range.stop + 1);
  read.cigar = std::move(cigar);
  return read;
}

/// ClippingOp.applyRevertSoftClippedBases.
CallRead revert_soft_clips_of(CallRead read) {
  if (read.cigar.empty() ||
      !(is_clipping(cigar_op(read.cigar.front())) || is_clipping(cigar_op(read.cigar.back())))) {
    return read;
  }
  const std::int64_t new_start = read.soft_start();
  read.cigar = revert_soft_clips(read.cigar);
  if (new_start >= 0) {
    read.start = new_start;
    return read;
  }
  // Bases before the contig cannot be represented: hard-clip them and start at the contig start.
  read.start = 0;
  read = hard_clip_bases(std::move(read), 0, -new_start - 1);
  if (!is_unmapped(read)) read.start = 0;
  return read;
}

/// ReadClipper.clipRead: applies the operations in order, each trimmed to the read as it is by
/// then (skipped if it starts past the end); a read left with no bases is empty_read().
CallRead apply_clips(CallRead read, std::span<const ClipRange> ranges,
                     Representation representation) {
  if (ranges.empty()) return read;
  for (ClipRange range : ranges) {
    const std::int64_t length = length_of(read);
    if (range.start >= length) continue;
    if (range.stop >= length) range.stop = length - 1;
    switch (representation) {
      case Representation::kHardClip:
        read = hard_clip_bases(std::move(read), range.start, range.stop);
        break;
      case Representation::kSoftClip:
        read = soft_clip_range(std::move(read), range);
        break;
      case Representation::kRevertSoftClips:
        read = revert_soft_clips_of(std::move(read));
        break;
    }
  }
  return is_empty(read) ? empty_read(std::move(read)) : std::move(read);
}

/// ReadClipper.clipLowQualEnds.
CallRead clip_low_qual_ends(CallRead read, std::uint8_t low_quality,
                            Representation representation) {
  if (is_empty(read)) return read;
  if (read.quals.size() != read.bases.size()) {
    throw ReadError("read " + read.name + ": qualities and bases differ in length");
  }
  const std::int64_t length = length_of(read);
  std::int64_t left = 0;
  std::int64_t right = length - 1;
  while (right >= 0 && at_most(read.quals[right], low_quality)) --right;
  while (left < length && at_most(read.quals[left], low_quality)) ++left;
  if (left > right) return empty_read(std::move(read));
  std::array<ClipRange, 2> ranges;
  std::size_t count = 0;
  if (right < length - 1) ranges[count++] = {right + 1, length - 1};
  if (left > 0) ranges[count++] = {0, left - 1};
  return apply_clips(std::move(read), std::span<const ClipRange>(ranges.data(), count),
                     representation);
}

/// ReadClipper.clipByReferenceCoordinates for HARDCLIP_BASES: `left_tail` clips [0, index of
/// `position`], otherwise [index of `position`, end].
CallRead hard_clip_at_reference(CallRead read, std::int64_t position, bool left_tail) {
  if (is_empty(read)) return read;
  const ReadIndexAtReference at = read_index_at_reference(read, position);
  // GATK: READ_INDEX_NOT_FOUND leaves the read alone (for a left tail GATK would fail with a
  // NullPointerException instead; HaplotypeCaller never asks for such a position).
  if (!at.found) return read;
  const std::int64_t length = length_of(read);
  std::int64_t start = 0;
  std::int64_t stop = length - 1;
  if (left_tail) {
    // in a deletion the index is the base after it; keep that base
    stop = at.index - (consumes_query(at.op) ? 0 : 1);
  } else {
    start = at.index;
  }
  if (start < 0 || stop > length - 1) {
    throw Error("read " + read.name + ": clip before the start or after the end of the read");
  }
  if (start > stop) {
    throw Error("read " + read.name + ": clip start " + std::to_string(start) + " > stop " +
                std::to_string(stop) + " (CIGAR " + cigar_to_string(read.cigar) + ")");
  }
  if (start > 0 && stop < length - 1) {
    throw Error("read " + read.name + ": clip in the middle of the read (CIGAR " +
                cigar_to_string(read.cigar) + ")");
  }
  const ClipRange range{start, stop};
  return apply_clips(std::move(read), std::span<const ClipRange>(&range, 1),
                     Representation::kHardClip);
}

/// The slice [from, from + count) of a quality array, in place.
template <typename Container>
void keep_slice(Container& values, std::int64_t from, std::int64_t count) {
  values.erase(values.begin() + from + count, values.end());
  values.erase(values.begin(), values.begin() + from);
}

}  // namespace

std::vector<std::uint32_t> clip_cigar(std::span<const std::uint32_t> cigar, std::int64_t start,
                                      std::int64_t stop_exclusive, CigarOp clip_op) {
  if (!is_clipping(clip_op)) throw Error("clip_cigar: not a clipping operator");
  const bool clip_left = start == 0;
  GatkCigarBuilder builder;
  std::int64_t element_start = 0;
  for (std::uint32_t element : cigar) {
    const CigarOp op = cigar_op(element);
    const std::int64_t length = cigar_length(element);
    if (op == CigarOp::kHardClip) {  // existing hard clips are copied
      builder.add(element);
      continue;
    }
    const std::int64_t element_end = element_start + (consumes_query(op) ? length : 0);
    if (element_end <= start || element_start >= stop_exclusive) {
      // outside the clip; a deletion touching the clip's edge is meaningless and dropped
      if (consumes_query(op) || (element_start != start && element_start != stop_exclusive)) {
        builder.add(element);
      }
    } else {
      const std::int64_t unclipped =
          clip_left ? element_end - stop_exclusive : start - element_start;
      const std::int64_t clipped = length - unclipped;
      if (unclipped <= 0) {
        if (consumes_query(op))
          builder.add(cigar_element(clip_op, static_cast<std::uint32_t>(length)));
      } else if (clip_left) {
        builder.add(cigar_element(clip_op, static_cast<std::uint32_t>(clipped)));
        builder.add(cigar_element(op, static_cast<std::uint32_t>(unclipped)));
      } else {
        builder.add(cigar_element(op, static_cast<std::uint32_t>(unclipped)));
        builder.add(cigar_element(clip_op, static_cast<std::uint32_t>(clipped)));
      }
    }
    element_start = element_end;
  }
  return builder.make();
}

std::int64_t alignment_start_shift(std::span<const std::uint32_t> cigar,
                                   std::int64_t clipped_bases) {
  std::int64_t reference_bases_clipped = 0;
  std::int64_t element_start = 0;
  for (std::uint32_t element : cigar) {
    const CigarOp op = cigar_op(element);
    const std::int64_t length = cigar_length(element);
    if (op == CigarOp::kHardClip) continue;
    const std::int64_t element_end = element_start + (consumes_query(op) ? length : 0);
    if (element_end <= clipped_bases) {  // wholly clipped, deletions right after the clip too
      reference_bases_clipped += consumes_reference(op) ? length : 0;
    } else if (element_start < clipped_bases) {  // clipped part-way: consumes read bases
      reference_bases_clipped += consumes_reference(op) ? clipped_bases - element_start : 0;
      break;
    }
    element_start = element_end;
  }
  return reference_bases_clipped;
}

std::vector<std::uint32_t> revert_soft_clips(std::span<const std::uint32_t> cigar) {
  GatkCigarBuilder builder;
  for (std::uint32_t element : cigar) {
    builder.add(cigar_op(element) == CigarOp::kSoftClip
                    ? cigar_element(CigarOp::kMatch, cigar_length(element))
                    : element);
  }
  return builder.make();
}

CallRead empty_read(CallRead read) {
  read.flag |= 0x4;
  read.mapping_quality = 0;
  read.cigar.clear();
  read.bases.clear();
  read.quals.clear();
  read.insertion_quals.clear();
  read.deletion_quals.clear();
  return read;
}

CallRead hard_clip_bases(CallRead read, std::int64_t start, std::int64_t stop) {
  const std::int64_t length = length_of(read);
  const std::int64_t new_length = length - (stop - start + 1);
  if (new_length == 0) return empty_read(std::move(read));
  if (read.quals.size() != read.bases.size() ||
      (!read.insertion_quals.empty() && read.insertion_quals.size() != read.bases.size()) ||
      (!read.deletion_quals.empty() && read.deletion_quals.size() != read.bases.size())) {
    throw ReadError("read " + read.name + ": qualities and bases differ in length");
  }
  const bool unmapped = is_unmapped(read);
  const std::int64_t copy_start = start == 0 ? stop + 1 : 0;

  // In place: the clipped read's bases, qualities and BI/BD are the slice that stays.
  std::vector<std::uint32_t> cigar =
      unmapped ? std::vector<std::uint32_t>{}
               : clip_cigar(read.cigar, start, stop + 1, CigarOp::kHardClip);
  if (start == 0 && !unmapped) read.start += alignment_start_shift(read.cigar, stop + 1);
  read.cigar = std::move(cigar);
  keep_slice(read.bases, copy_start, new_length);
  keep_slice(read.quals, copy_start, new_length);
  if (has_indel_qualities(read)) {
    read.insertion_quals = slice_indel_qualities(read.insertion_quals, copy_start, new_length);
    read.deletion_quals = slice_indel_qualities(read.deletion_quals, copy_start, new_length);
  }
  return read;
}

CallRead hard_clip_soft_clipped_bases(CallRead read) {
  if (is_empty(read)) return read;
  std::int64_t read_index = 0;
  std::int64_t cut_left = -1;   // last base of the left clip
  std::int64_t cut_right = -1;  // first base of the right clip
  bool right_tail = false;
  for (std::uint32_t element : read.cigar) {
    const CigarOp op = cigar_op(element);
    if (op == CigarOp::kSoftClip) {
      if (right_tail) {
        cut_right = read_index;
      } else {
        cut_left = read_index + cigar_length(element) - 1;
      }
    } else if (op != CigarOp::kHardClip) {
      right_tail = true;
    }
    if (consumes_query(op)) read_index += cigar_length(element);
  }
  std::array<ClipRange, 2> ranges;  // the right end first, so the left indices stay valid
  std::size_t count = 0;
  if (cut_right >= 0) ranges[count++] = {cut_right, length_of(read) - 1};
  if (cut_left >= 0) ranges[count++] = {0, cut_left};
  return apply_clips(std::move(read), std::span<const ClipRange>(ranges.data(), count),
                     Representation::kHardClip);
}

CallRead revert_soft_clipped_bases(CallRead read) {
  if (is_empty(read)) return read;
  const ClipRange range{0, 0};
  return apply_clips(std::move(read), std::span<const ClipRange>(&range, 1),
                     Representation::kRevertSoftClips);
}

CallRead hard_clip_low_qual_ends(CallRead read, std::uint8_t low_quality) {
  return clip_low_qual_ends(std::move(read), low_quality, Representation::kHardClip);
}

CallRead soft_clip_low_qual_ends(CallRead read, std::uint8_t low_quality) {
  return clip_low_qual_ends(std::move(read), low_quality, Representation::kSoftClip);
}

CallRead hard_clip_left_tail(CallRead read, std::int64_t reference_stop) {
  return hard_clip_at_reference(std::move(read), reference_stop, true);
}

CallRead hard_clip_right_tail(CallRead read, std::int64_t reference_start) {
  return hard_clip_at_reference(std::move(read), reference_start, false);
}

CallRead hard_clip_both_ends(CallRead read, std::int64_t left, std::int64_t right) {
  if (is_empty(read) || left == right) return empty_read(std::move(read));
  CallRead right_clipped = hard_clip_right_tail(read, right);
  // clipping deletions next to the cut can move the end before `left`: nothing is left then
  if (is_empty(right_clipped) || left > alignment_stop(right_clipped)) {
    return empty_read(std::move(read));
  }
  return hard_clip_left_tail(std::move(right_clipped), left);
}

CallRead hard_clip_to_region(CallRead read, std::int64_t region_start, std::int64_t region_end) {
  if (is_empty(read)) return empty_read(std::move(read));
  const std::int64_t region_stop = region_end - 1;
  const std::int64_t start = read.start;
  const std::int64_t stop = alignment_stop(read);
  if (!(start <= region_stop && stop >= region_start)) return empty_read(std::move(read));
  if (start < region_start && stop > region_stop) {
    return hard_clip_both_ends(std::move(read), region_start - 1, region_stop + 1);
  }
  if (start < region_start) return hard_clip_left_tail(std::move(read), region_start - 1);
  if (stop > region_stop) return hard_clip_right_tail(std::move(read), region_stop + 1);
  return read;
}

CallRead hard_clip_adaptor_sequence(CallRead read) {
  const std::optional<std::int64_t> boundary = adaptor_boundary(read);
  if (!boundary || *boundary < read.start || *boundary > alignment_stop(read)) return read;
  const bool reverse = read.is_reverse_strand();
  return reverse ? hard_clip_left_tail(std::move(read), *boundary)
                 : hard_clip_right_tail(std::move(read), *boundary);
}

}  // namespace gpp::stages::call
