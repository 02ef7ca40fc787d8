#include "stages/markdup/end_features.hpp"

#include <oneapi/tbb/parallel_for.h>

#include <algorithm>

#include "core/cigar.hpp"
#include "io/reads/aux_fields.hpp"
#include "stages/markdup/duplicate_score.hpp"
#include "stages/markdup/query_groups.hpp"

namespace gpp::stages::markdup {

namespace {

// htsjdk SAMUtils.getUnclippedStart / getUnclippedEnd (1-based).
std::int32_t unclipped_five_prime(const io::ReadBatch& reads, std::size_t i) {
  const auto cigar = reads.read_cigar(i);
  const std::int64_t start = reads.pos[i] + 1;
  if (!(reads.flag[i] & io::flag::kReverse)) {
    std::int64_t clipped = 0;
    for (const std::uint32_t element : cigar) {
      if (!is_clipping(cigar_op(element))) break;
      clipped += cigar_length(element);
    }
    return static_cast<std::int32_t>(start - clipped);
  }
  const auto reference_length = static_cast<std::int64_t>(cigar_reference_length(cigar));
  std::int64_t clipped = 0;
  for (auto it = cigar.rbegin(); it != cigar.rend(); ++it) {
    if (!is_clipping(cigar_op(*it))) break;
    clipped += cigar_length(*it);
  }
  return static_cast<std::int32_t>(start + reference_length - 1 + clipped);
}

}  // namespace

EndFeatures::EndFeatures(const std::string& read_name_regex) : parser_(read_name_regex) {}

void EndFeatures::append(const EndFeatures& other) {
  five_prime.insert(five_prime.end(), other.five_prime.begin(), other.five_prime.end());
  score.insert(score.end(), other.score.begin(), other.score.end());
  location.insert(location.end(), other.location.begin(), other.location.end());
  location_read_group.insert(location_read_group.end(), other.location_read_group.begin(),
                             other.location_read_group.end());
  name_hash.insert(name_hash.end(), other.name_hash.begin(), other.name_hash.end());
}

void EndFeatures::reserve(std::size_t records) {
  five_prime.reserve(records);
  score.reserve(records);
  location.reserve(records);
  location_read_group.reserve(records);
  name_hash.reserve(records);
}

void EndFeatures::resize(std::size_t records) {
  five_prime.resize(records);
  score.resize(records);
  location.resize(records);
  location_read_group.resize(records);
  name_hash.resize(records);
}

std::uint32_t end_name_hash(std::string_view name) {
  return static_cast<std::uint32_t>(name_hash(name) >> 32);
}

void EndFeatures::compute(const io::ReadBatch& reads, const io::Header& header) {
  resize(reads.size());
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, reads.size(), 1024),
                            [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
                              visit(reads, header, r.begin(), r.end());
                            });
}

void EndFeatures::visit(const io::ReadBatch& reads, const io::Header& header, std::size_t begin,
                        std::size_t end) {
  const std::int16_t header_read_groups = static_cast<std::int16_t>(header.read_groups().size());
  for (std::size_t i = begin; i != end; ++i) {
    const std::uint16_t f = reads.flag[i];
    if ((f & io::flag::kUnmapped) || (f & (io::flag::kSecondary | io::flag::kSupplementary)))
      continue;
    five_prime[i] = unclipped_five_prime(reads, i);
    score[i] = duplicate_score(reads.read_qual(i), f & io::flag::kQcFail);
    location_read_group[i] = -1;
    if ((f & io::flag::kPaired) && !(f & io::flag::kMateUnmapped)) {
      name_hash[i] = end_name_hash(reads.read_name(i));
    }
    if (const auto parsed = parser_.parse(reads.read_name(i))) {
      location[i] = *parsed;
      // Picard: the read group's index in the header; 0 without an RG tag, and one past the
      // last read group when the tag names none of them.
      const std::int32_t rg = reads.read_group[i];
      if (rg >= 0) {
        location_read_group[i] = static_cast<std::int16_t>(rg);
      } else {
        location_read_group[i] =
            io::find_aux_field(reads.read_aux(i), "RG") != nullptr ? header_read_groups : 0;
      }
    }
  }
}

}  // namespace gpp::stages::markdup
