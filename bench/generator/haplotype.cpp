#include "bench/generator/haplotype.hpp"

#include <algorithm>

#include "core/cigar.hpp"

namespace gpp::bench {

namespace {

constexpr CigarOp kMatch = CigarOp::kMatch;
constexpr CigarOp kInsertion = CigarOp::kInsertion;
constexpr CigarOp kDeletion = CigarOp::kDeletion;
constexpr CigarOp kSoftClip = CigarOp::kSoftClip;

std::uint32_t pack(std::int64_t length, CigarOp op) {
  return cigar_element(op, static_cast<std::uint32_t>(length));
}

void append_op(std::vector<std::uint32_t>& cigar, CigarOp op, std::int64_t length) {
  if (length <= 0) return;
  if (!cigar.empty() && cigar_op(cigar.back()) == op) {
    cigar.back() += static_cast<std::uint32_t>(length) << 4;
  } else {
    cigar.push_back(pack(length, op));
  }
}

std::int64_t reference_length(const std::vector<std::uint32_t>& cigar) {
  return static_cast<std::int64_t>(cigar_reference_length(cigar));
}

}  // namespace

Haplotype::Haplotype(std::string_view reference, const std::vector<Variant>& truth, int index) {
  bases_.reserve(reference.size() + reference.size() / 1000);
  std::int64_t cursor = 0;  // next reference base to copy
  std::int64_t shift = 0;   // reference minus haplotype position of the bases being copied
  for (const Variant& v : truth) {
    if ((v.haplotypes >> index & 1) == 0) continue;
    bases_.append(reference.substr(cursor, v.pos - cursor));
    if (v.is_snp()) {
      bases_ += v.alt;
      cursor = v.pos + 1;
    } else if (v.ref.size() > 1) {  // deletion of ref[1:] after the anchor base
      const auto deleted = static_cast<std::int32_t>(v.ref.size() - 1);
      bases_ += v.ref[0];
      shift += deleted;
      indels_.push_back(
          {.hap_pos = size(), .length = -deleted, .ref_pos = v.pos + 1, .shift_after = shift});
      cursor = v.ref_end();
    } else {  // insertion of alt[1:] after the anchor base
      const auto inserted = static_cast<std::int32_t>(v.alt.size() - 1);
      bases_ += v.ref[0];
      const std::int64_t hap_pos = size();
      bases_.append(v.alt, 1);
      shift -= inserted;
      indels_.push_back(
          {.hap_pos = hap_pos, .length = inserted, .ref_pos = v.pos + 1, .shift_after = shift});
      cursor = v.pos + 1;
    }
  }
  bases_.append(reference.substr(cursor));
}

std::int64_t Haplotype::from_reference(std::int64_t ref_pos) const {
  const auto next = std::partition_point(
      indels_.begin(), indels_.end(), [ref_pos](const Indel& e) { return e.ref_pos <= ref_pos; });
  std::int64_t hap_pos = ref_pos;
  if (next != indels_.begin()) {
    const Indel& last = *(next - 1);
    hap_pos = std::max(ref_pos - last.shift_after, last.hap_pos);  // a deleted base: the one after
  }
  return std::clamp<std::int64_t>(hap_pos, 0, size() - 1);
}

ReadAlignment Haplotype::align(std::int64_t start, int length) const {
  ReadAlignment a;
  a.pos = -1;
  const std::int64_t stop = start + length;
  auto k = static_cast<std::size_t>(
      std::partition_point(indels_.begin(), indels_.end(),
                           [start](const Indel& e) { return e.hap_end() <= start; }) -
      indels_.begin());
  std::int64_t shift = k > 0 ? indels_[k - 1].shift_after : 0;
  std::int64_t h = start;
  const auto match_to = [&](std::int64_t until) {
    if (until <= h) return;
    if (a.pos < 0) a.pos = h + shift;
    append_op(a.cigar, kMatch, until - h);
    h = until;
  };
  for (; k < indels_.size() && indels_[k].hap_pos < stop; ++k) {
    const Indel& e = indels_[k];
    match_to(e.hap_pos);
    if (e.length > 0) {
      const std::int64_t to = std::min(e.hap_end(), stop);
      append_op(a.cigar, kInsertion, to - h);
      h = to;
    } else {
      append_op(a.cigar, kDeletion, -e.length);
    }
    shift = e.shift_after;
  }
  match_to(stop);
  if (a.pos < 0) a.pos = h + shift;  // only for stretches inside one insertion
  // Inserted bases at an end have no reference base on that side to anchor them: clipped.
  if (cigar_op(a.cigar.front()) == kInsertion)
    a.cigar.front() = pack(cigar_length(a.cigar.front()), kSoftClip);
  if (cigar_op(a.cigar.back()) == kInsertion)
    a.cigar.back() = pack(cigar_length(a.cigar.back()), kSoftClip);
  a.end = a.pos + reference_length(a.cigar);
  return a;
}

void soft_clip(ReadAlignment& a, int count, bool at_start) {
  if (count <= 0) return;
  std::vector<std::uint32_t> ops = a.cigar;
  if (!at_start) std::reverse(ops.begin(), ops.end());
  std::int64_t clipped = 0;      // read bases soft-clipped so far
  std::int64_t ref_skipped = 0;  // reference bases no longer covered
  std::size_t i = 0;
  for (; i < ops.size(); ++i) {
    const CigarOp op = cigar_op(ops[i]);
    const std::int64_t length = cigar_length(ops[i]);
    if (op == kSoftClip || op == kInsertion) {
      clipped += length;
    } else if (op == kDeletion) {
      ref_skipped += length;  // inside the clip, or next to it: an alignment never starts with D
    } else if (clipped < count) {
      const std::int64_t take = std::min(length, count - clipped);
      clipped += take;
      ref_skipped += take;
      if (take < length) {
        ops[i] = pack(length - take, kMatch);
        break;
      }
    } else {
      break;
    }
  }
  std::vector<std::uint32_t> cigar{pack(clipped, kSoftClip)};
  cigar.insert(cigar.end(), ops.begin() + static_cast<std::ptrdiff_t>(i), ops.end());
  if (!at_start) std::reverse(cigar.begin(), cigar.end());
  if (at_start) a.pos += ref_skipped;
  a.cigar = std::move(cigar);
  a.end = a.pos + reference_length(a.cigar);
}

}  // namespace gpp::bench
