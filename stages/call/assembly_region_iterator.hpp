// How HaplotypeCaller walks one contig into assembly regions (GATK engine/AssemblyRegionIterator,
// one read shard per contig as AssemblyRegionWalker makes them):
//  - every position of the traversal intervals gets an activity state, covered or not
//    (IntervalAlignmentContextIterator gives empty pileups, whose probability is 0);
//  - before a position's state is added, the profile pops the regions that are ready, with
//    force_conversion when the position does not follow the previous one (a new interval);
//  - a popped region is handed out once the traversal has passed the end of its padded span, so
//    every read that can overlap it has been seen; at the end of the contig the profile is
//    force-popped and every pending region is handed out.
// GATK hands out at most one region per traversed position; this class hands out every region
// whose padded span has been passed. The regions and their order are the same; only how long a
// finished region waits differs.
//
// @code
//   AssemblyRegionIterator regions(contig, contig_length, AssemblyRegionOptions{});
//   for (std::int64_t pos = 0; pos < contig_length; ++pos) {
//     regions.add_locus(pos, walker.pileup_at(pos), reference[pos], activity_options);
//     while (auto region = regions.next_ready()) use(*region);
//   }
//   regions.finish();
//   while (auto region = regions.next_ready()) use(*region);
// @endcode
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "stages/call/activity_profile.hpp"
#include "stages/call/assembly_region.hpp"
#include "stages/call/call_read.hpp"
#include "stages/call/locus_activity.hpp"
#include "stages/call/pileup.hpp"

namespace gpp::stages::call {

/// Streams the assembly regions of one contig from per-position activity states.
class AssemblyRegionIterator {
 public:
  /// @throws gpp::Error on invalid options (AssemblyRegionOptions::validate) or contig length
  AssemblyRegionIterator(std::int32_t contig, std::int64_t contig_length,
                         const AssemblyRegionOptions& options);

  /**
   * @brief Adds the state of the next traversed position (positions increase; a gap starts a new
   *        interval).
   * @throws gpp::Error if the position does not increase, lies off the contig, or after finish()
   */
  void add_state(const ActivityProfileState& state);

  /// add_state(locus_activity(position, pileup, reference_base, activity)).
  void add_locus(std::int64_t position, std::span<const PileupElement> pileup, char reference_base,
                 const LocusActivityOptions& activity);

  /// End of the traversal: the profile is force-popped and every region becomes ready.
  void finish();

  /// The next region whose padded span the traversal has passed (every one after finish()).
  std::optional<AssemblyRegion> next_ready();

  /// Regions popped from the profile and not yet handed out.
  std::size_t pending() const { return pending_.size(); }
  const ActivityProfile& profile() const { return profile_; }

 private:
  AssemblyRegionOptions options_;
  ActivityProfile profile_;
  std::deque<AssemblyRegion> pending_;
  std::int64_t last_position_ = -1;
  bool finished_ = false;
};

/// A traversal interval on the contig: [start, end), 0-based.
struct TraversalSpan {
  std::int64_t start = 0;
  std::int64_t end = 0;
};

/**
 * @brief All assembly regions of one contig, in order: pileups, isActive, the band-pass profile
 *        and region cutting over the traversal spans (the whole contig when `spans` is empty).
 *
 * @param contig     reference index of the reads and regions
 * @param reference  the contig's bases (its length is the contig length)
 * @param reads      the contig's reads after HaplotypeCaller's filters and downsampling, sorted by
 *                   start (reads of other contigs are an error)
 * @param spans      sorted, non-overlapping traversal intervals (GATK -L after merging)
 * @throws gpp::Error on unsorted reads or spans, a read of another contig, or invalid options
 */
std::vector<AssemblyRegion> find_assembly_regions(std::int32_t contig, std::string_view reference,
                                                  std::span<const CallRead> reads,
                                                  std::span<const TraversalSpan> spans,
                                                  const AssemblyRegionOptions& region_options,
                                                  const LocusActivityOptions& activity_options);

}  // namespace gpp::stages::call
