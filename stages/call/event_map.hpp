// The variant events of one haplotype, read off its CIGAR against the reference (GATK
// utils/haplotype/EventMap.getEvents and utils/haplotype/Event): SNPs (MNPs when
// max_mnp_distance > 0; HaplotypeCaller uses 0), insertions and deletions in VCF style with the
// reference base before them as padding, every event in minimal representation (common suffix
// trimmed). Events sharing a start are merged into one compound event (EventMap.addEvent).
//
// Edge rules, as GATK: no insertion or deletion whose padding base would lie before the reference
// window; no insertion as the first or last CIGAR element; no event touching a base other than
// A C G T (or *) on either side, so N never makes an event.
//
// @code
//   // reference window "AAAAAAAAAACGGTCA" at 0, haplotype "AAATTTCA" at offset 7, CIGAR 3M3D2I3M
//   EventMap m = event_map_from_haplotype(h, ref);
//   // events: {9, "ACGG" -> "A"} and {12, "G" -> "GTT"}
//   m.overlapping_events(12);   // the insertion only: a deletion ending where an insertion starts
// @endcode
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "stages/call/contig_interval.hpp"
#include "stages/call/haplotype.hpp"

namespace gpp::stages::call {

/// One biallelic event (GATK Event): ref and alt alleles in VCF style at contig position `start`.
struct Event {
  std::int64_t start = 0;  ///< 0-based position of ref[0] (the padding base of an indel)
  std::string ref;
  std::string alt;

  /// Last reference position the event covers (GATK getEnd).
  std::int64_t stop() const { return start + static_cast<std::int64_t>(ref.size()) - 1; }
  bool is_snp() const { return ref.size() == 1 && alt.size() == 1; }
  bool is_indel() const { return ref.size() != alt.size(); }
  bool is_simple_insertion() const { return ref.size() == 1 && alt.size() > 1; }
  /// GATK's definition: any ref longer than one base with a one-base alt (so AC -> T counts).
  bool is_simple_deletion() const { return ref.size() > 1 && alt.size() == 1; }
  bool is_mnp() const { return ref.size() > 1 && ref.size() == alt.size(); }
  ContigInterval interval() const { return {start, stop()}; }

  friend bool operator==(const Event&, const Event&) = default;
};

/**
 * @brief `new Event(contig, start, ref, alt)`: alleles upper-cased and put in minimal
 * representation (a common last base is trimmed while both alleles are longer than one base).
 * @throws gpp::Error if the alleles are identical or trimming would empty one of them
 */
Event make_event(std::int64_t start, std::string ref, std::string alt);

/**
 * @brief EventMap.makeCompoundEvents: two events at one start applied one after the other.
 * SNP + insertion: A->G + A->AT = A->GT; SNP + deletion: A->T + AC->A = AC->T;
 * deletion + insertion: AC->A + A->AGT = AC->AGT.
 * @throws gpp::Error for two SNPs, two indels of one kind, or different starts
 */
Event make_compound_event(const Event& first, const Event& second);

/// Events of one haplotype by start position (GATK EventMap, a TreeMap<Integer, Event>).
class EventMap {
 public:
  EventMap() = default;
  /// Adds the events in order (EventMap(Collection)). Throws as add().
  explicit EventMap(std::span<const Event> events);

  /// EventMap.addEvent: a second event at a start already present is merged into it
  /// (make_compound_event). @throws gpp::Error as make_compound_event
  void add(const Event& event);

  const std::map<std::int64_t, Event>& by_start() const { return events_; }
  /// The events in start order.
  std::vector<Event> events() const;
  std::size_t size() const { return events_.size(); }
  bool empty() const { return events_.empty(); }

  /**
   * @brief EventMap.getOverlappingEvents: events with start <= loc <= stop, in start order,
   * less the simple deletions ending at loc when an insertion starts there.
   */
  std::vector<Event> overlapping_events(std::int64_t loc) const;

 private:
  std::map<std::int64_t, Event> events_;
};

/**
 * @brief EventMap.fromHaplotype(haplotype, ref, refLoc, maxMnpDistance).
 *
 * @param haplotype  bases, CIGAR and alignment_start_wrt_ref (offset into `reference.bases` of
 *                   the CIGAR's first reference base; negative: alignment failed, no events)
 * @param reference  the window the CIGAR offsets refer to. For GATK's exact edge behaviour pass the
 *                   assembly reference (the padded region plus its 500 bp of extra reference),
 *                   not just the reference haplotype: an indel at the haplotype's first base takes
 *                   its padding base from before it.
 * @param max_mnp_distance substitutions in one M element this close or closer are merged
 * @throws gpp::Error for a negative max_mnp_distance, an operator other than M = X I D S, an
 *         M element running past the reference window or the bases, or a bad compound event
 */
EventMap event_map_from_haplotype(const Haplotype& haplotype, const ReferenceWindow& reference,
                                  int max_mnp_distance = 0);

/// EventMap.getEventStartPositions: every event start over all maps, sorted, each once.
std::vector<std::int64_t> event_start_positions(std::span<const EventMap> event_maps);

}  // namespace gpp::stages::call
