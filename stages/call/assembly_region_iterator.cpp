// GATK AssemblyRegionIterator's traversal of one contig into assembly regions (see
// assembly_region_iterator.hpp).
#include "stages/call/assembly_region_iterator.hpp"

#include <string>

#include "core/error.hpp"

namespace gpp::stages::call {

AssemblyRegionIterator::AssemblyRegionIterator(std::int32_t contig, std::int64_t contig_length,
                                               const AssemblyRegionOptions& options)
    : options_(options), profile_(contig, contig_length, options) {
  options_.validate();
}

void AssemblyRegionIterator::add_state(const ActivityProfileState& state) {
  if (finished_) throw Error("assembly regions: state added after the end of the traversal");
  if (state.position <= last_position_) {
    throw Error("assembly regions: position " + std::to_string(state.position) +
                " does not follow " + std::to_string(last_position_));
  }
  // Pop before adding: a position that does not follow the profile's end starts a new interval.
  if (!profile_.empty()) {
    const bool force_conversion = state.position != profile_.end() + 1;
    for (const AssemblyRegion& region :
         profile_.pop_ready_regions(options_.padding, options_.min_region_size,
                                    options_.max_region_size, force_conversion)) {
      pending_.push_back(region);
    }
  }
  profile_.add(state);
  last_position_ = state.position;
}

void AssemblyRegionIterator::add_locus(std::int64_t position, std::span<const PileupElement> pileup,
                                       char reference_base, const LocusActivityOptions& activity) {
  add_state(locus_activity(position, pileup, reference_base, activity));
}

void AssemblyRegionIterator::finish() {
  if (finished_) return;
  if (!profile_.empty()) {
    for (const AssemblyRegion& region : profile_.pop_ready_regions(
             options_.padding, options_.min_region_size, options_.max_region_size, true)) {
      pending_.push_back(region);
    }
  }
  finished_ = true;
}

std::optional<AssemblyRegion> AssemblyRegionIterator::next_ready() {
  if (pending_.empty()) return std::nullopt;
  // IntervalUtils.isAfter(locus, paddedSpan): the traversal is past the padded end.
  if (!finished_ && last_position_ < pending_.front().padded_end) return std::nullopt;
  AssemblyRegion region = pending_.front();
  pending_.pop_front();
  return region;
}

std::vector<AssemblyRegion> find_assembly_regions(std::int32_t contig, std::string_view reference,
                                                  std::span<const CallRead> reads,
                                                  std::span<const TraversalSpan> spans,
                                                  const AssemblyRegionOptions& region_options,
                                                  const LocusActivityOptions& activity_options) {
  const auto contig_length = static_cast<std::int64_t>(reference.size());
  const TraversalSpan whole_contig{0, contig_length};
  if (spans.empty()) spans = std::span<const TraversalSpan>(&whole_contig, 1);
  std::int64_t previous_end = 0;
  for (const TraversalSpan& span : spans) {
    if (span.start < previous_end || span.end <= span.start || span.end > contig_length) {
      throw Error(
          "assembly regions: traversal spans must be sorted, non-overlapping, non-empty "
          "and on the contig");
    }
    previous_end = span.end;
  }

  AssemblyRegionIterator iterator(contig, contig_length, region_options);
  PileupWalker walker;
  std::vector<AssemblyRegion> regions;
  std::size_t next_read = 0;
  for (const TraversalSpan& span : spans) {
    for (std::int64_t position = span.start; position < span.end; ++position) {
      while (next_read < reads.size() && reads[next_read].start <= position) {
        if (reads[next_read].contig != contig) {
          throw Error("assembly regions: read " + reads[next_read].name + " is on contig " +
                      std::to_string(reads[next_read].contig) + ", not " + std::to_string(contig));
        }
        walker.add_read(reads[next_read++]);
      }
      iterator.add_locus(position, walker.pileup_at(position),
                         reference[static_cast<std::size_t>(position)], activity_options);
      while (auto region = iterator.next_ready()) regions.push_back(*region);
    }
  }
  iterator.finish();
  while (auto region = iterator.next_ready()) regions.push_back(*region);
  return regions;
}

}  // namespace gpp::stages::call
