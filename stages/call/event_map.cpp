// GATK EventMap.getEvents / addEvent / makeCompoundEvents / getOverlappingEvents and the minimal
// representation of Event's constructor.
#include "stages/call/event_map.hpp"

#include <algorithm>
#include <cctype>
#include <deque>

#include "core/cigar.hpp"
#include "core/error.hpp"

namespace gpp::stages::call {

namespace {

/// BaseUtils.isRegularBase: A C G T in either case, and the '*' wildcard.
bool is_regular_base(char base) {
  switch (base) {
    case 'A':
    case 'C':
    case 'G':
    case 'T':
    case 'a':
    case 'c':
    case 'g':
    case 't':
    case '*':
      return true;
    default:
      return false;
  }
}

bool all_regular_bases(std::string_view bases) {
  return std::all_of(bases.begin(), bases.end(), is_regular_base);
}

std::string upper(std::string bases) {
  for (char& c : bases) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return bases;
}

/// Java's Arrays.copyOfRange: positions past the end read as byte 0 (never a regular base).
std::string copy_range(std::string_view bases, std::int64_t from, std::int64_t to) {
  if (from < 0 || from > static_cast<std::int64_t>(bases.size())) {
    throw Error("event outside the reference window or haplotype bases");
  }
  std::string out(static_cast<std::size_t>(to - from), '\0');
  const std::int64_t available = std::min<std::int64_t>(to, bases.size()) - from;
  std::copy_n(bases.begin() + from, available, out.begin());
  return out;
}

char base_at(std::string_view bases, std::int64_t index, const char* what) {
  if (index < 0 || index >= static_cast<std::int64_t>(bases.size())) {
    throw Error(std::string("haplotype CIGAR runs past the ") + what);
  }
  return bases[static_cast<std::size_t>(index)];
}

}  // namespace

Event make_event(std::int64_t start, std::string ref, std::string alt) {
  Event event{start, upper(std::move(ref)), upper(std::move(alt))};
  if (event.ref.empty() || event.alt.empty()) throw Error("Null alleles are not supported");
  if (event.ref.size() == 1 || event.alt.size() == 1 || event.ref.back() != event.alt.back()) {
    return event;
  }
  if (event.ref == event.alt) throw Error("ref and alt alleles are identical: " + event.ref);
  std::size_t overlap = 0;
  const std::size_t min_length = std::min(event.ref.size(), event.alt.size());
  while (overlap < min_length &&
         event.ref[event.ref.size() - 1 - overlap] == event.alt[event.alt.size() - 1 - overlap]) {
    ++overlap;
  }
  event.ref.resize(event.ref.size() - overlap);
  event.alt.resize(event.alt.size() - overlap);
  if (event.ref.empty() || event.alt.empty()) throw Error("Null alleles are not supported");
  return event;
}

Event make_compound_event(const Event& first, const Event& second) {
  if (first.start != second.start) throw Error("e1 and e2 must have the same start");
  if (first.is_snp() || second.is_snp()) {
    if (first.is_snp() && second.is_snp()) {
      throw Error(
          "Trying to put two overlapping SNPs in one EventMap.  This could be a CIGAR bug.");
    }
    const Event& snp = first.is_snp() ? first : second;
    const Event& indel = first.is_snp() ? second : first;
    if (snp.ref == indel.ref) {  // SNP + insertion: A -> G + A -> CT = A -> GT
      return make_event(snp.start, snp.ref, snp.alt + indel.alt.substr(1));
    }
    return make_event(snp.start, indel.ref, snp.alt);  // SNP + deletion: A -> T + AC -> A = AC -> T
  }
  const bool deletion_then_insertion = first.is_simple_deletion() && second.is_simple_insertion();
  const bool insertion_then_deletion = first.is_simple_insertion() && second.is_simple_deletion();
  if (!deletion_then_insertion && !insertion_then_deletion) {
    throw Error("Can only merge single insertion with deletion (or vice versa)");
  }
  const Event& insertion = first.is_simple_insertion() ? first : second;
  const Event& deletion = first.is_simple_insertion() ? second : first;
  return make_event(first.start, deletion.ref, insertion.alt);
}

EventMap::EventMap(std::span<const Event> events) {
  for (const Event& e : events) add(e);
}

void EventMap::add(const Event& event) {
  auto it = events_.find(event.start);
  if (it == events_.end()) {
    events_.emplace(event.start, event);
  } else {
    it->second = make_compound_event(it->second, event);
  }
}

std::vector<Event> EventMap::events() const {
  std::vector<Event> out;
  out.reserve(events_.size());
  for (const auto& [start, event] : events_) out.push_back(event);
  return out;
}

std::vector<Event> EventMap::overlapping_events(std::int64_t loc) const {
  std::vector<Event> overlapping;
  for (auto it = events_.begin(); it != events_.end() && it->first <= loc; ++it) {
    if (it->second.stop() >= loc) overlapping.push_back(it->second);
  }
  const bool insertion_here = std::any_of(overlapping.begin(), overlapping.end(),
                                          [](const Event& e) { return e.is_simple_insertion(); });
  if (insertion_here) {
    std::erase_if(overlapping,
                  [loc](const Event& e) { return e.is_simple_deletion() && e.stop() == loc; });
  }
  return overlapping;
}

EventMap event_map_from_haplotype(const Haplotype& haplotype, const ReferenceWindow& reference,
                                  int max_mnp_distance) {
  if (max_mnp_distance < 0) throw Error("maxMnpDistance may not be negative.");
  std::int64_t ref_pos = haplotype.alignment_start_wrt_ref;
  if (ref_pos < 0) return {};  // protection against Smith-Waterman failures

  const std::string_view ref = reference.bases;
  const std::string_view alignment = haplotype.bases;
  const std::span<const std::uint32_t> cigar = haplotype.cigar;
  std::vector<Event> proposed;
  std::int64_t alignment_pos = 0;

  for (std::size_t index = 0; index < cigar.size(); ++index) {
    const CigarOp op = cigar_op(cigar[index]);
    const std::int64_t length = cigar_length(cigar[index]);
    switch (op) {
      case CigarOp::kInsertion: {
        // no insertion at the start of the window, nor one not resolved inside the haplotype
        if (ref_pos > 0 && index > 0 && index + 1 < cigar.size()) {
          const char ref_base = base_at(ref, ref_pos - 1, "reference window");
          std::string inserted(1, ref_base);
          inserted += copy_range(alignment, alignment_pos, alignment_pos + length);
          if (all_regular_bases(inserted)) {
            proposed.push_back(make_event(reference.start + ref_pos - 1, std::string(1, ref_base),
                                          std::move(inserted)));
          }
        }
        alignment_pos += length;
        break;
      }
      case CigarOp::kSoftClip:
        alignment_pos += length;
        break;
      case CigarOp::kDeletion: {
        if (ref_pos > 0) {  // no deletion at the start of the window
          std::string deleted = copy_range(ref, ref_pos - 1, ref_pos + length);
          const char ref_base = base_at(ref, ref_pos - 1, "reference window");
          if (is_regular_base(ref_base) && all_regular_bases(deleted)) {
            proposed.push_back(make_event(reference.start + ref_pos - 1, std::move(deleted),
                                          std::string(1, ref_base)));
          }
        }
        ref_pos += length;
        break;
      }
      case CigarOp::kMatch:
      case CigarOp::kSequenceMatch:
      case CigarOp::kSequenceMismatch: {
        std::deque<std::int64_t> mismatches;
        for (std::int64_t offset = 0; offset < length; ++offset) {
          const char ref_base = base_at(ref, ref_pos + offset, "reference window");
          const char alt_base = base_at(alignment, alignment_pos + offset, "haplotype bases");
          if (ref_base != alt_base && is_regular_base(ref_base) && is_regular_base(alt_base)) {
            mismatches.push_back(offset);
          }
        }
        while (!mismatches.empty()) {
          const std::int64_t first = mismatches.front();
          mismatches.pop_front();
          std::int64_t last = first;
          while (!mismatches.empty() && mismatches.front() - last <= max_mnp_distance) {
            last = mismatches.front();
            mismatches.pop_front();
          }
          const auto n = static_cast<std::size_t>(last - first + 1);
          proposed.push_back(make_event(
              reference.start + ref_pos + first,
              std::string(ref.substr(static_cast<std::size_t>(ref_pos + first), n)),
              std::string(alignment.substr(static_cast<std::size_t>(alignment_pos + first), n))));
        }
        ref_pos += length;
        alignment_pos += length;
        break;
      }
      default:
        throw Error(std::string("Unsupported cigar operator created during SW alignment: ") +
                    cigar_op_char(op));
    }
  }
  return EventMap(proposed);
}

std::vector<std::int64_t> event_start_positions(std::span<const EventMap> event_maps) {
  std::vector<std::int64_t> starts;
  for (const EventMap& map : event_maps) {
    for (const auto& [start, event] : map.by_start()) starts.push_back(start);
  }
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  return starts;
}

}  // namespace gpp::stages::call
