// GATK AssemblyRegionTrimmer.trim (non-legacy path) with TandemRepeat.getNumTandemRepeatUnits.
#include "stages/call/calling_window.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "stages/call/tandem_repeat.hpp"

namespace gpp::stages::call {

namespace {

ContigInterval intersect(ContigInterval a, ContigInterval b) {
  if (!a.overlaps(b)) throw Error("calling window: intervals to intersect do not overlap");
  return {std::max(a.first, b.first), std::min(a.last, b.last)};
}

}  // namespace

CallingWindow compute_calling_window(ContigInterval active_span, ContigInterval padded_span,
                                     std::span<const Event> events,
                                     const ReferenceWindow& reference,
                                     const GenotypingPadding& padding) {
  if (padding.snp < 0 || padding.indel < 0 || padding.str < 0) {
    throw Error("genotyping paddings must be >= 0");
  }
  std::vector<const Event*> in_region;
  for (const Event& e : events) {
    if (active_span.overlaps(e.interval())) in_region.push_back(&e);
  }
  if (in_region.empty()) return {};

  std::int64_t min_start = in_region.front()->start;
  std::int64_t max_end = in_region.front()->stop();
  for (const Event* e : in_region) {
    min_start = std::min(min_start, e->start);
    max_end = std::max(max_end, e->stop());
  }
  CallingWindow window;
  window.variation_present = true;
  window.variant_span = intersect({min_start, max_end}, active_span);

  if (!reference.interval().contains(padded_span)) {
    throw Error("calling window: the reference window does not contain the region's padded span");
  }
  // GATK's ReferenceContext for the region covers exactly its padded span
  const ReferenceWindow context{
      reference.bases.substr(static_cast<std::size_t>(padded_span.first - reference.start),
                             static_cast<std::size_t>(padded_span.size())),
      padded_span.first};

  for (const Event* e : in_region) {
    std::int64_t event_padding = padding.snp;
    if (e->is_indel()) {
      event_padding = padding.indel;
      if (std::optional<TandemRepeatUnits> str = event_tandem_repeat_units(*e, context)) {
        const int most_repeats =
            *std::max_element(str->repeats_per_allele.begin(), str->repeats_per_allele.end());
        event_padding = padding.str + static_cast<std::int64_t>(most_repeats) *
                                          static_cast<std::int64_t>(str->repeat_unit.size());
      }
    }
    min_start = std::min(min_start, std::max<std::int64_t>(e->start - event_padding, 0));
    max_end = std::max(max_end, e->stop() + event_padding);
  }
  window.padded_span = intersect({min_start, max_end}, padded_span);
  if (!window.padded_span.contains(window.variant_span)) {
    throw Error("the padded span must include the variant span");
  }
  return window;
}

}  // namespace gpp::stages::call
