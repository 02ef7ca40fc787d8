// GATKVariantContextUtils.getNumTandemRepeatUnits / findRepeatedSubstring /
// findNumberOfRepetitions and TandemRepeat.getNumTandemRepeatUnits(ReferenceContext, Event).
#include "stages/call/tandem_repeat.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace gpp::stages::call {

int repeated_substring_length(std::string_view bases) {
  const auto length = static_cast<int>(bases.size());
  int unit = 1;
  for (; unit <= length; ++unit) {
    bool all_match = true;
    // a last piece shorter than the unit never matches (GATK compares it zero-padded)
    for (int start = unit; start < length; start += unit) {
      if (start + unit > length || bases.substr(start, unit) != bases.substr(0, unit)) {
        all_match = false;
        break;
      }
    }
    if (all_match) return unit;
  }
  return unit;
}

int number_of_repetitions(std::string_view unit, std::string_view test, bool leading) {
  if (unit.empty()) throw Error("empty repeatUnit");
  if (test.empty()) return 0;
  const auto unit_length = static_cast<std::int64_t>(unit.size());
  const std::int64_t length_difference = static_cast<std::int64_t>(test.size()) - unit_length;
  int repeats = 0;
  if (leading) {
    for (std::int64_t start = 0; start <= length_difference; start += unit_length) {
      if (test.substr(static_cast<std::size_t>(start), unit.size()) != unit) return repeats;
      ++repeats;
    }
  } else {
    for (std::int64_t start = length_difference; start >= 0; start -= unit_length) {
      if (test.substr(static_cast<std::size_t>(start), unit.size()) != unit) return repeats;
      ++repeats;
    }
  }
  return repeats;
}

namespace {

struct RepeatCounts {
  int in_ref = 0;
  int in_alt = 0;
  std::string unit;
};

/// getNumTandemRepeatUnits(byte[] refBases, byte[] altBases, byte[] remainingRefContext).
RepeatCounts count_repeats(std::string_view ref_bases, std::string_view alt_bases,
                           std::string_view context) {
  const std::string_view longer = alt_bases.size() > ref_bases.size() ? alt_bases : ref_bases;
  RepeatCounts counts;
  if (longer.empty()) return counts;  // GATK's unit would be a 0 byte, matching nothing: 0 and 0
  counts.unit = std::string(longer.substr(0, repeated_substring_length(longer)));
  const int repeats_in_ref = number_of_repetitions(counts.unit, ref_bases, true);
  const std::string ref_with_context = std::string(ref_bases) + std::string(context);
  const std::string alt_with_context = std::string(alt_bases) + std::string(context);
  counts.in_ref = number_of_repetitions(counts.unit, ref_with_context, true) - repeats_in_ref;
  counts.in_alt = number_of_repetitions(counts.unit, alt_with_context, true) - repeats_in_ref;
  return counts;
}

}  // namespace

std::optional<TandemRepeatUnits> tandem_repeat_units(std::string_view ref_allele,
                                                     std::span<const std::string> alt_alleles,
                                                     std::string_view ref_after_padding_base) {
  const bool no_length_change =
      std::all_of(alt_alleles.begin(), alt_alleles.end(),
                  [&](const std::string& a) { return a.size() == ref_allele.size(); });
  if (no_length_change) return std::nullopt;  // only indels are tandem repeats

  const std::string_view ref_bases = ref_allele.substr(std::min<std::size_t>(1, ref_allele.size()));
  TandemRepeatUnits result;
  for (const std::string& alt : alt_alleles) {
    const std::string_view alt_bases =
        std::string_view(alt).substr(std::min<std::size_t>(1, alt.size()));
    RepeatCounts counts = count_repeats(ref_bases, alt_bases, ref_after_padding_base);
    // a count of 0: the allele is not a tandem expansion of the context
    if (counts.in_ref == 0 || counts.in_alt == 0) return std::nullopt;
    if (result.repeats_per_allele.empty()) result.repeats_per_allele.push_back(counts.in_ref);
    result.repeats_per_allele.push_back(counts.in_alt);
    result.repeat_unit = std::move(counts.unit);
  }
  return result;
}

std::optional<TandemRepeatUnits> event_tandem_repeat_units(const Event& event,
                                                           const ReferenceWindow& context) {
  const std::int64_t start_index = event.start + 1 - context.start;
  if (start_index < 0 || start_index > static_cast<std::int64_t>(context.bases.size())) {
    throw Error("indel at " + std::to_string(event.start) +
                " lies outside the reference context of the calling window");
  }
  const std::string alts[] = {event.alt};
  return tandem_repeat_units(event.ref, alts,
                             context.bases.substr(static_cast<std::size_t>(start_index)));
}

}  // namespace gpp::stages::call
