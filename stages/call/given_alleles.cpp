// GATK 4.6 HaplotypeCallerEngine.isActive and callRegion's given alleles,
// GATKVariantContextUtils.splitVariantContextToEvents / trimAlleles, Event's minimal
// representation and AssemblyBasedCallerUtils.allelesConsistentWithGivenAlleles.
#include "stages/call/given_alleles.hpp"

#include <algorithm>

namespace gpp::stages::call {

namespace {

/// htsjdk Allele.length(): a symbolic allele has none.
std::size_t allele_length(std::string_view allele) {
  return is_symbolic_allele(allele) ? 0 : allele.size();
}

/// trimAlleles(vc, trimForward = false, trimReverse = true) of [ref, alt]: the bases every
/// allele with bases (not '*') shares at its end, one base kept in each.
void trim_shared_end(std::string& ref, std::string& alt) {
  const auto trimmable = [](std::string_view allele) {
    return !is_symbolic_allele(allele) && allele != "*";
  };
  for (const std::string* allele : {&ref, &alt}) {
    if (allele_length(*allele) == 1 && *allele != "*") return;
  }
  std::vector<std::string*> alleles;
  for (std::string* allele : {&ref, &alt}) {
    if (trimmable(*allele)) alleles.push_back(allele);
  }
  if (alleles.empty()) return;
  std::size_t shortest = alleles.front()->size();
  for (const std::string* allele : alleles) shortest = std::min(shortest, allele->size());
  std::size_t shared = 0;
  while (shared + 1 < shortest) {
    const char base = (*alleles.front())[alleles.front()->size() - 1 - shared];
    const bool all = std::all_of(alleles.begin(), alleles.end(), [&](const std::string* allele) {
      return (*allele)[allele->size() - 1 - shared] == base;
    });
    if (!all) break;
    ++shared;
  }
  for (std::string* allele : alleles) allele->resize(allele->size() - shared);
}

/// Event's minimal representation: a shared last base dropped while both alleles are longer
/// than one base (a symbolic ALT has no length) (GATK's loop can empty an allele and then fails;
/// one base is kept here).
void drop_shared_last_bases(std::string& ref, std::string& alt) {
  if (is_symbolic_allele(alt)) return;  // htsjdk's length 0: never trimmed
  while (ref.size() > 1 && alt.size() > 1 && ref.back() == alt.back()) {
    ref.pop_back();
    alt.pop_back();
  }
}

}  // namespace

bool is_symbolic_allele(std::string_view allele) {
  if (allele == ".") return true;
  if (allele.size() <= 1) return false;
  return allele.front() == '<' || allele.back() == '>' || allele.front() == '.' ||
         allele.back() == '.' || allele.find_first_of("[]") != std::string_view::npos;
}

std::vector<Event> given_events(std::int64_t position, std::span<const std::string> alleles) {
  std::vector<Event> events;
  if (alleles.size() < 2) return events;
  const bool multi_allelic = alleles.size() > 2;
  for (std::size_t a = 1; a < alleles.size(); ++a) {
    std::string ref = alleles[0];
    std::string alt = alleles[a];
    if (multi_allelic) trim_shared_end(ref, alt);
    drop_shared_last_bases(ref, alt);
    if (ref == alt || ref.empty() || alt.empty()) continue;  // GATK fails on such a record
    events.push_back(Event{position, std::move(ref), std::move(alt)});
  }
  return events;
}

GivenAlleles::GivenAlleles(std::span<const io::KnownVariant> records, bool force_call_filtered)
    : force_call_filtered_(force_call_filtered) {
  add_records(records);
}

GivenAlleles::GivenAlleles(GivenRecordReader reader, std::int64_t contig_length,
                           bool force_call_filtered, std::int64_t piece)
    : force_call_filtered_(force_call_filtered),
      reader_(std::move(reader)),
      contig_length_(contig_length),
      piece_(std::max<std::int64_t>(piece, 1)) {}

void GivenAlleles::load_through(std::int64_t position, std::int64_t keep_from) {
  if (!reader_) return;
  while (loaded_to_ <= position && loaded_to_ < contig_length_) {
    const std::int64_t to = std::min(contig_length_, loaded_to_ + piece_);
    add_records(reader_(loaded_to_, to));
    loaded_to_ = to;
    release_before(keep_from);
  }
}

void GivenAlleles::release_before(std::int64_t position) {
  // max_last_ does not decrease: the records before the first reaching `position` go.
  const auto count = static_cast<std::size_t>(
      std::lower_bound(max_last_.begin(), max_last_.end(), position) - max_last_.begin());
  // Moving the rest down costs what they hold: only once as many have gone (each record is
  // then moved a bounded number of times).
  if (count == 0 || count * 2 < spans_.size()) return;
  const auto end = static_cast<std::ptrdiff_t>(count);
  spans_.erase(spans_.begin(), spans_.begin() + end);
  events_.erase(events_.begin(), events_.begin() + end);
  max_last_.erase(max_last_.begin(), max_last_.begin() + end);
}

void GivenAlleles::add_records(std::span<const io::KnownVariant> records) {
  std::vector<std::size_t> kept;
  for (std::size_t r = 0; r < records.size(); ++r) {
    if (!records[r].alleles.empty() && (force_call_filtered_ || !records[r].filtered)) {
      kept.push_back(r);
    }
  }
  std::stable_sort(kept.begin(), kept.end(), [&](std::size_t a, std::size_t b) {
    return records[a].position < records[b].position;
  });
  for (const std::size_t r : kept) {
    const io::KnownVariant& record = records[r];
    const auto length = static_cast<std::int64_t>(record.alleles[0].size());
    spans_.push_back({record.position, record.position + std::max<std::int64_t>(length, 1) - 1});
    events_.push_back(given_events(record.position, record.alleles));
    max_last_.push_back(max_last_.empty() ? spans_.back().last
                                          : std::max(max_last_.back(), spans_.back().last));
  }
}

std::pair<std::size_t, std::size_t> GivenAlleles::records_reaching(std::int64_t from,
                                                                   std::int64_t to) const {
  // max_last_ does not decrease: the first record that can reach `from`.
  const auto first = static_cast<std::size_t>(
      std::lower_bound(max_last_.begin(), max_last_.end(), from) - max_last_.begin());
  const auto end = static_cast<std::size_t>(
      std::upper_bound(spans_.begin() + static_cast<std::ptrdiff_t>(first), spans_.end(), to,
                       [](std::int64_t p, const ContigInterval& span) { return p < span.first; }) -
      spans_.begin());
  return {first, end};
}

bool GivenAlleles::overlaps(std::int64_t position) const {
  // A record starting at or before the position whose span, or an earlier one's, reaches it.
  const auto [first, end] = records_reaching(position, position);
  return first < end;
}

std::vector<Event> GivenAlleles::events_for_region(ContigInterval padded_span,
                                                   std::int64_t span_start) const {
  std::vector<Event> events;
  const auto [first, end] = records_reaching(padded_span.first, padded_span.last);
  for (std::size_t i = first; i < end; ++i) {
    if (spans_[i].last < padded_span.first) continue;
    for (const Event& event : events_[i]) {
      if (event.start >= span_start) events.push_back(event);
    }
  }
  return events;
}

bool alleles_consistent(std::string_view given_ref, std::string_view given_alt,
                        std::string_view site_ref, std::string_view site_alt) {
  if (is_symbolic_allele(given_alt) || is_symbolic_allele(site_alt)) return false;
  const auto change = [](std::string_view ref, std::string_view alt) {
    return static_cast<std::int64_t>(allele_length(alt)) -
           static_cast<std::int64_t>(allele_length(ref));
  };
  if (change(given_ref, given_alt) != change(site_ref, site_alt)) return false;
  const std::size_t shorter = std::min(given_alt.size(), site_alt.size());
  return given_alt.substr(0, shorter) == site_alt.substr(0, shorter);
}

std::vector<int> forced_alleles(std::span<const std::string> alleles,
                                std::span<const Event> given) {
  std::vector<int> forced;
  if (alleles.empty()) return forced;
  for (std::size_t a = 1; a < alleles.size(); ++a) {
    const bool consistent = std::any_of(given.begin(), given.end(), [&](const Event& event) {
      return alleles_consistent(event.ref, event.alt, alleles[0], alleles[a]);
    });
    if (consistent) forced.push_back(static_cast<int>(a));
  }
  return forced;
}

}  // namespace gpp::stages::call
