#include "stages/call/annotations/known_variant_overlap.hpp"

#include <algorithm>

#include "stages/call/alleles_at_locus.hpp"
#include "stages/call/indel_left_alignment.hpp"

namespace gpp::stages::call {

namespace {

/// Symbolic alleles (<NON_REF>, <DEL>, ...) and the spanning deletion: htsjdk keeps them as they
/// are when it trims.
bool untrimmable(const std::string& allele) {
  return allele == kSpanningDeletion || allele.find_first_of("<>[]") != std::string::npos;
}

/// GATKVariantContextUtils.trimAlleles(event, trimForward = true, trimReverse = true) of a
/// biallelic event, through AlignmentUtils.normalizeAlleles (no shift, trimming).
AlleleEvent trimmed(AlleleEvent event) {
  const bool alt_bases = !untrimmable(event.alt);
  // Java's rule: nothing to trim when an allele other than '*' is one base long (a symbolic
  // allele has length 0).
  if (event.ref.size() == 1 || (event.alt.size() == 1 && event.alt != kSpanningDeletion)) {
    return event;
  }
  AlleleRange ref_range{0, static_cast<std::int64_t>(event.ref.size())};
  std::int64_t start_trim = 0;
  std::int64_t end_trim = 0;
  bool empty_allele = false;
  if (alt_bases) {
    AlleleRange alt_range{0, static_cast<std::int64_t>(event.alt.size())};
    const auto [start_shift, end_shift] =
        normalize_alleles(event.ref, event.alt, ref_range, alt_range, 0, true);
    start_trim = -start_shift;
    end_trim = end_shift;
    empty_allele = ref_range.size() == 0 || alt_range.size() == 0;
  } else {
    // REF alone takes part: every base is shared with itself, from the end.
    end_trim = static_cast<std::int64_t>(event.ref.size());
    empty_allele = true;
  }
  const std::int64_t end_clip = empty_allele && start_trim == 0 ? end_trim - 1 : end_trim;
  const std::int64_t start_clip = empty_allele && start_trim > 0 ? start_trim - 1 : start_trim;
  if (start_clip == 0 && end_clip == 0) return event;
  const auto clip = [&](std::string& allele) {
    allele = allele.substr(static_cast<std::size_t>(start_clip),
                           allele.size() - static_cast<std::size_t>(start_clip + end_clip));
  };
  clip(event.ref);
  if (alt_bases) clip(event.alt);
  event.start += start_clip;
  return event;
}

}  // namespace

std::vector<AlleleEvent> split_into_events(std::int64_t position,
                                           std::span<const std::string> alleles) {
  std::vector<AlleleEvent> events;
  if (alleles.size() < 2) return events;  // not a variant
  if (alleles.size() == 2) return {{position, alleles[0], alleles[1]}};
  for (std::size_t a = 1; a < alleles.size(); ++a) {
    events.push_back(trimmed({position, alleles[0], alleles[a]}));
  }
  return events;
}

std::optional<std::string> matching_known_ids(std::int64_t position,
                                              std::span<const std::string> alleles,
                                              std::span<const io::KnownVariant> records) {
  const std::vector<AlleleEvent> site = split_into_events(position, alleles);
  std::optional<std::string> ids;
  for (const io::KnownVariant& record : records) {
    if (record.filtered) continue;
    const std::vector<AlleleEvent> known = split_into_events(record.position, record.alleles);
    const bool shared = std::any_of(known.begin(), known.end(), [&](const AlleleEvent& event) {
      return std::find(site.begin(), site.end(), event) != site.end();
    });
    if (!shared) continue;
    ids = ids ? *ids + ';' + record.id : record.id;
  }
  return ids;
}

void annotate_known_variants(VariantCall& call, std::span<const io::KnownVariant> records_at_call) {
  if (records_at_call.empty()) return;
  std::vector<std::string> alleles = call.alleles;
  if (!call.trimmed_suffix.empty()) {
    for (std::string& allele : alleles) {
      if (!untrimmable(allele)) allele += call.trimmed_suffix;
    }
  }
  const std::optional<std::string> ids =
      matching_known_ids(call.position, alleles, records_at_call);
  if (!ids) return;
  // annotateRsID: htsjdk's hasID() is false for '.'.
  if (call.id.empty() || call.id == ".") {
    call.id = *ids;
  } else if (call.id.find(*ids) == std::string::npos) {
    call.id += ';' + *ids;
  }
  // annotateOverlaps: the same match flags the call (INFO keys stay sorted).
  const InfoField flag{"DB", ""};
  const auto at =
      std::lower_bound(call.info.begin(), call.info.end(), flag,
                       [](const InfoField& a, const InfoField& b) { return a.key < b.key; });
  if (at == call.info.end() || at->key != flag.key) call.info.insert(at, flag);
}

}  // namespace gpp::stages::call
