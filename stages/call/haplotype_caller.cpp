#include "stages/call/haplotype_caller.hpp"

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_pipeline.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <future>
#include <memory>
#include <mutex>

#include "core/elapsed.hpp"
#include "core/hash.hpp"
#include "stages/call/downsampler.hpp"
#include "stages/call/haplotype_bam.hpp"
#include "stages/call/locus_activity.hpp"
#include "stages/call/pileup.hpp"
#include "stages/call/read_realignment.hpp"
#include "stages/call/read_window.hpp"
#include "stages/call/region_alignment.hpp"

namespace gpp::stages::call {

namespace {

/// A read's rank for the per-region bound: FNV-1a of its name (mates share it, so a fragment is
/// kept or dropped whole), mixed with splitmix64, so the kept reads follow no pattern of the input
/// (every k-th read could keep one allele of a site where reads alternate between alleles).
std::uint64_t bound_rank(const CallRead& read) {
  std::uint64_t hash = 1469598103934665603ULL;
  for (const char c : read.name) hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return splitmix64(hash);
}

/// Whether `read` is of the sample called: `called_read_groups` per read group, empty for all.
bool is_called(const CallRead& read, std::span<const std::uint8_t> called_read_groups) {
  return called_read_groups.empty() ||
         (read.read_group < called_read_groups.size() && called_read_groups[read.read_group] != 0);
}

/// The reads of the sample called overlapping [padded_start, padded_end)
/// (AssemblyRegionIterator's region reads, less those removeReadsFromAllSamplesExcept removes),
/// at most `cap` of them when cap > 0: those of the lowest bound_rank (ties by input order), kept
/// in input order. The same input gives the same reads on every run and thread count.
std::vector<const CallRead*> region_reads(const ReadWindow& reads, std::int64_t max_span,
                                          const AssemblyRegion& region, int cap,
                                          std::span<const std::uint8_t> called_read_groups) {
  const auto first = reads.first_starting_at(region.padded_start - max_span);
  std::vector<const CallRead*> overlapping;
  for (auto it = first; it != reads.end() && it->start < region.padded_end; ++it) {
    if (it->end() > region.padded_start && is_called(*it, called_read_groups)) {
      overlapping.push_back(&*it);
    }
  }
  const std::size_t limit = cap > 0 ? static_cast<std::size_t>(cap) : overlapping.size();
  if (overlapping.size() > limit) {
    std::vector<std::pair<std::uint64_t, std::size_t>> ranked(overlapping.size());
    for (std::size_t i = 0; i < overlapping.size(); ++i)
      ranked[i] = {bound_rank(*overlapping[i]), i};
    std::nth_element(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(limit),
                     ranked.end());
    ranked.resize(limit);
    std::sort(ranked.begin(), ranked.end(),
              [](const auto& a, const auto& b) { return a.second < b.second; });
    std::vector<const CallRead*> kept;
    kept.reserve(limit);
    for (const auto& [rank, index] : ranked) kept.push_back(overlapping[index]);
    overlapping = std::move(kept);
  }
  return overlapping;
}

void add_smith_waterman_stats(kernels::SwStats& totals, const kernels::SwStats& batch) {
  totals.cells += batch.cells;
  totals.gpu_pairs += batch.gpu_pairs;
  totals.cpu_pairs += batch.cpu_pairs;
  totals.seconds += batch.seconds;
  totals.gpu_kernel_seconds += batch.gpu_kernel_seconds;
}

/// Every region's reads against its haplotypes in one PairHMM batch; fills work.likelihoods.
void compute_likelihoods(std::span<RegionWork> works, kernels::PairHmm& pairhmm,
                         kernels::PairHmmStats& totals) {
  kernels::PairHmmBatch batch;
  std::vector<RegionWork*> scored;
  for (RegionWork& work : works) {
    if (!work.has_work) continue;
    for (const PairHmmReadInputs& read : work.hmm_reads) {
      batch.add_read(read.bases, read.base_quals, read.insertion_quals, read.deletion_quals,
                     read.gap_continuation_quals);
    }
    for (const Haplotype& haplotype : work.genotyping_haplotypes) {
      batch.add_haplotype(haplotype.bases);
    }
    batch.end_group();
    scored.push_back(&work);
  }
  if (scored.empty()) return;
  const std::vector<double> results = pairhmm.compute(batch.view());
  const kernels::PairHmmStats& stats = pairhmm.stats();
  totals.pairs += stats.pairs;
  totals.cells += stats.cells;
  totals.double_pairs += stats.double_pairs;
  totals.seconds += stats.seconds;
  totals.compute_seconds += stats.compute_seconds;
  std::size_t offset = 0;
  for (RegionWork* work : scored) {
    ReadLikelihoodMatrix& matrix = work->likelihoods;
    matrix.read_count = work->hmm_reads.size();
    matrix.haplotype_count = work->genotyping_haplotypes.size();
    const std::size_t size = matrix.read_count * matrix.haplotype_count;
    matrix.values.assign(results.begin() + static_cast<std::ptrdiff_t>(offset),
                         results.begin() + static_cast<std::ptrdiff_t>(offset + size));
    offset += size;
  }
}

/// Zero-coverage stretches further than this from any read are not traversed: there every state
/// is 0 (an empty pileup is inactive), and an active region's bounds depend only on the states
/// within the band-pass filter (50) and soft-clip propagation (50) of it, so skipping them changes
/// no region that can hold a call.
constexpr std::int64_t kTraversalMargin = 1000;

/// `spans` (in order) restricted to the stretches within kTraversalMargin of a read or of a
/// `given` record (sorted by start). Only the reads that can reach them are looked at (none is
/// longer than max_span on the reference).
std::vector<TraversalSpan> covered_spans(std::span<const TraversalSpan> spans,
                                         const ReadWindow& reads, std::int64_t max_span,
                                         std::span<const ContigInterval> given) {
  if (spans.empty()) return {};
  std::vector<TraversalSpan> near;
  const std::int64_t first = spans.front().start;
  const std::int64_t last = spans.back().end;
  for (auto it = reads.first_starting_at(first - kTraversalMargin - max_span);
       it != reads.end() && it->start - kTraversalMargin < last; ++it) {
    near.push_back({it->start - kTraversalMargin, it->end() + kTraversalMargin});
  }
  // Given alleles make their loci active without reads (GATK visits every locus of -L).
  for (const ContigInterval& record : given) {
    if (record.last + 1 + kTraversalMargin > first && record.first - kTraversalMargin < last) {
      near.push_back({record.first - kTraversalMargin, record.last + 1 + kTraversalMargin});
    }
  }
  if (!given.empty()) {
    std::sort(near.begin(), near.end(),
              [](const TraversalSpan& a, const TraversalSpan& b) { return a.start < b.start; });
  }
  std::vector<TraversalSpan> covered;
  for (const TraversalSpan& span : near) {
    if (!covered.empty() && span.start <= covered.back().end) {
      covered.back().end = std::max(covered.back().end, span.end);
    } else {
      covered.push_back(span);
    }
  }
  std::vector<TraversalSpan> out;
  for (const TraversalSpan& span : spans) {
    for (const TraversalSpan& near : covered) {
      const std::int64_t start = std::max(span.start, near.start);
      const std::int64_t end = std::min(span.end, near.end);
      if (start < end) out.push_back({start, end});
    }
  }
  return out;
}

/// `spans` cut to [from, to).
std::vector<TraversalSpan> clipped_spans(std::span<const TraversalSpan> spans, std::int64_t from,
                                         std::int64_t to) {
  std::vector<TraversalSpan> out;
  for (const TraversalSpan& span : spans) {
    const std::int64_t start = std::max(span.start, from), end = std::min(span.end, to);
    if (start < end) out.push_back({start, end});
  }
  return out;
}

/// Positions whose activity one task computes: a share of the stretch to traverse, so that a
/// short stretch still keeps every thread busy (the states do not depend on the pieces), and
/// small enough that the profile takes the first pieces' states while later ones are computed.
std::int64_t activity_piece(std::span<const TraversalSpan> spans) {
  std::int64_t positions = 0;
  for (const TraversalSpan& span : spans) positions += span.end - span.start;
  const auto threads = static_cast<std::int64_t>(oneapi::tbb::this_task_arena::max_concurrency());
  return std::clamp<std::int64_t>(positions / (8 * threads), 1 << 10, 1 << 13);
}

/// For each position of `piece`, whether it may hold an alt element (its activity needs the
/// pileup): mark_possible_alt_positions over the reads from `first_read` that start in the piece
/// or before it, and every reference base other than A, C, G, T. Elsewhere no counted element is
/// alt, so the activity is 0 (LocusActivityAccumulator::finish) — when every counted base has
/// quality 2 or more, as with --min-base-quality-score 1 or more; empty (every position needs
/// its pileup) otherwise.
std::vector<char> possible_alt_positions(const ContigReference& contig, const ReadWindow& reads,
                                         ReadWindow::Iterator first_read,
                                         const TraversalSpan& piece,
                                         const HaplotypeCallerOptions& options) {
  if (options.activity.min_base_quality < 1) return {};
  std::vector<char> marks(static_cast<std::size_t>(piece.end - piece.start), 0);
  for (auto read = first_read; read != reads.end() && read->start < piece.end; ++read) {
    if (read->end() > piece.start) {
      mark_possible_alt_positions(*read, contig.bases, piece.start, marks);
    }
  }
  for (std::int64_t position = piece.start; position < piece.end; ++position) {
    const char base = contig.bases[static_cast<std::size_t>(position)];
    if (base != 'A' && base != 'C' && base != 'G' && base != 'T') {
      marks[static_cast<std::size_t>(position - piece.start)] = 1;
    }
  }
  return marks;
}

/// The locus activity of each position with the ploidy --ploidy-regions gives it (getLocalActive
/// Genotyper; the accumulator takes at least 2): one accumulator per ploidy met.
class LocusActivityPloidies {
 public:
  LocusActivityPloidies(const LocusActivityOptions& options, const ContigPloidy& ploidy)
      : options_(options), ploidy_(ploidy) {
    accumulators_.emplace_back(options.sample_ploidy,
                               std::make_unique<LocusActivityAccumulator>(options));
  }

  LocusActivityAccumulator& at(std::int64_t position) {
    if (!ploidy_.varies()) return *accumulators_.front().second;
    const int ploidy = ploidy_.at(position, position + 1);
    for (auto& [known, accumulator] : accumulators_) {
      if (known == ploidy) return *accumulator;
    }
    LocusActivityOptions options = options_;
    options.sample_ploidy = ploidy;
    return *accumulators_.emplace_back(ploidy, std::make_unique<LocusActivityAccumulator>(options))
                .second;
  }

 private:
  const LocusActivityOptions& options_;
  const ContigPloidy& ploidy_;
  std::vector<std::pair<int, std::unique_ptr<LocusActivityAccumulator>>> accumulators_;
};

/// find_assembly_regions with the per-locus activity (pileups and the reference-confidence
/// likelihoods, most of the work) computed in parallel, piece by piece, and the states fed to
/// the activity profile in genomic order as the pieces complete (an ordered pipeline: the
/// profile's serial work overlaps the pileups of the pieces after): the same regions as one
/// sequential traversal, since a state depends only on the reads covering its position. The
/// ready regions go to `regions`. A locus a `given` record covers is active (probability 1).
void add_activity(const ContigReference& contig, const ReadWindow& reads,
                  std::span<const TraversalSpan> spans, std::int64_t max_span,
                  const HaplotypeCallerOptions& options, const ContigPloidy& ploidy,
                  const GivenAlleles* given, AssemblyRegionIterator& iterator,
                  std::deque<AssemblyRegion>& regions) {
  const std::int64_t piece_length = activity_piece(spans);
  std::vector<TraversalSpan> pieces;
  for (const TraversalSpan& span : spans) {
    for (std::int64_t start = span.start; start < span.end; start += piece_length) {
      pieces.push_back({start, std::min(span.end, start + piece_length)});
    }
  }
  using States = std::vector<ActivityProfileState>;
  std::size_t next = 0;
  const auto in_flight =
      static_cast<std::size_t>(4 * oneapi::tbb::this_task_arena::max_concurrency());
  oneapi::tbb::parallel_pipeline(
      in_flight,
      oneapi::tbb::make_filter<void, TraversalSpan>(oneapi::tbb::filter_mode::serial_in_order,
                                                    [&](oneapi::tbb::flow_control& control) {
                                                      if (next == pieces.size()) {
                                                        control.stop();
                                                        return TraversalSpan{};
                                                      }
                                                      return pieces[next++];
                                                    }) &
          oneapi::tbb::make_filter<TraversalSpan, States>(
              oneapi::tbb::filter_mode::parallel,
              [&](const TraversalSpan piece) {
                const auto first_read = reads.first_starting_at(piece.start - max_span);
                const std::vector<char> possible_alts =
                    possible_alt_positions(contig, reads, first_read, piece, options);
                auto reader = first_read;
                PileupWalker walker;
                LocusActivityPloidies activities(options.activity, ploidy);
                States states;
                states.reserve(static_cast<std::size_t>(piece.end - piece.start));
                for (std::int64_t position = piece.start; position < piece.end; ++position) {
                  for (; reader != reads.end() && reader->start <= position; ++reader) {
                    walker.add_read(*reader);
                  }
                  if (given != nullptr && given->overlaps(position)) {
                    // HaplotypeCallerEngine.isActive: a given record's locus is active.
                    states.push_back(ActivityProfileState{position, 1.0});
                    continue;
                  }
                  if (!possible_alts.empty() &&
                      !possible_alts[static_cast<std::size_t>(position - piece.start)]) {
                    states.push_back(ActivityProfileState{position, 0.0});
                    continue;
                  }
                  LocusActivityAccumulator& activity = activities.at(position);
                  activity.reset(contig.bases[static_cast<std::size_t>(position)]);
                  walker.for_each_element_at(
                      position, [&activity](const PileupElement& e) { activity.add(e); });
                  states.push_back(activity.finish(position));
                }
                return states;
              }) &
          oneapi::tbb::make_filter<States, void>(
              oneapi::tbb::filter_mode::serial_in_order, [&](const States& states) {
                for (const ActivityProfileState& state : states) {
                  iterator.add_state(state);
                  while (auto region = iterator.next_ready()) {
                    regions.push_back(*region);
                  }
                }
              }));
}

/// AssemblyBasedCallerUtils.realignReadsToTheirBestHaplotype for every region of the batch: one
/// Smith-Waterman batch, then the genotyping reads replaced by their realigned records (which
/// the marginalisation's overlap test and the annotations see, as in GATK).
void realign_reads(std::span<RegionWork> works, CallerEngines& engines, bool tag_best_haplotype) {
  std::vector<ReadRealignmentInput> inputs;
  std::vector<RegionWork*> realigned_works;
  for (RegionWork& work : works) {
    if (!work.has_work) continue;
    inputs.push_back({work.genotyping_reads, work.genotyping_haplotypes, work.likelihoods.values,
                      work.reference_haplotype, work.full_reference.start, tag_best_haplotype});
    realigned_works.push_back(&work);
  }
  if (inputs.empty()) return;
  std::vector<std::vector<CallRead>> realigned;
  {
    const std::unique_lock lock = engines.aligner_lock();
    kernels::SwStats sw;
    realigned = realign_reads_to_best_haplotypes(inputs, engines.aligner(), &sw);
    add_smith_waterman_stats(engines.smith_waterman, sw);
  }
  for (std::size_t i = 0; i < realigned_works.size(); ++i) {
    realigned_works[i]->genotyping_reads = std::move(realigned[i]);
  }
}

/// The region's calls and reference sites to the sink, merged by position (a call replaces the
/// site where it starts; reference_model_for_region leaves no site there).
void emit_region(RegionWork& work, CallSink& sink) {
  std::size_t c = 0;
  for (const ReferenceSite& site : work.reference_sites) {
    for (; c < work.calls.size() && work.calls[c].position < site.position; ++c) {
      sink.add_call(std::move(work.calls[c]));
    }
    sink.add_reference_site(site);
  }
  for (; c < work.calls.size(); ++c) sink.add_call(std::move(work.calls[c]));
  if (!work.bam_records.empty()) {
    sink.add_bam_records(std::move(work.bam_records), work.full_reference.start);
  }
}

/// reference_model_for_region for the batch's active regions, or for its inactive ones.
void model_regions(std::span<RegionWork> works, const ContigReference& contig,
                   const HaplotypeCallerOptions& options, bool active) {
  oneapi::tbb::parallel_for(std::size_t{0}, works.size(), [&](std::size_t i) {
    RegionWork& work = works[i];
    if (work.region.is_active == active) {
      reference_model_for_region(work, contig, work.window_reads, options);
    }
  });
}

template <typename Step>
void for_each_region(std::span<RegionWork> works, const Step& step) {
  oneapi::tbb::parallel_for(std::size_t{0}, works.size(), [&](std::size_t i) {
    if (works[i].has_work) step(works[i]);
  });
}

/// Keeps reads[rows[0]], reads[rows[1]], ... (ascending) in that order at the front, in place,
/// and frees the rest: no new array (tens of megabytes of fresh pages per chunk of reads).
void keep_rows(std::vector<CallRead>& reads, std::span<const std::size_t> rows) {
  std::size_t kept = 0;
  for (const std::size_t row : rows) {
    if (row != kept) reads[kept] = std::move(reads[row]);  // a vector moved onto itself empties
    ++kept;
  }
  reads.erase(reads.begin() + static_cast<std::ptrdiff_t>(kept), reads.end());
}

}  // namespace

void select_caller_reads(std::vector<CallRead>& reads, const ReadFilterContext& context,
                         const HaplotypeCallerOptions& options) {
  std::vector<std::uint8_t> passes(reads.size());
  oneapi::tbb::parallel_for(std::size_t{0}, reads.size(), [&](std::size_t i) {
    convert_iupac_to_n(reads[i]);
    passes[i] = passes_hc_read_filters(reads[i], context) ? 1 : 0;
  });
  std::vector<std::size_t> kept;
  kept.reserve(reads.size());
  for (std::size_t i = 0; i < reads.size(); ++i) {
    if (passes[i]) kept.push_back(i);
  }
  if (kept.size() < reads.size()) keep_rows(reads, kept);
  if (options.max_reads_per_alignment_start > 0) {
    kept = downsample_by_alignment_start(reads, options.max_reads_per_alignment_start);
    if (kept.size() < reads.size()) keep_rows(reads, kept);
  }
}

/// One contig's calling as its reads arrive: activity up to where the reads are complete, the
/// ready regions in batches of options.regions_per_batch, and the reads no step can need again
/// dropped, so memory follows the batches in flight rather than the contig. The work is a
/// pipeline of stages: the caller's thread converts and filters the next reads; the activity
/// thread takes the last chunk in (activity, regions) and starts each batch of regions through
/// the later stages — assembly, alignment (haplotypes to the reference, read preparation), the
/// engines (PairHMM, realignment, genotyping) and writing — each taking one batch at a time, in
/// order. The output is that of one thread doing it all in turn.
class ContigCaller::State {
 public:
  State(const ContigReference& contig, std::span<const TraversalSpan> spans,
        const HaplotypeCallerOptions& options, CallerEngines& engines, CallSink& sink,
        GivenAlleles* given, std::span<const std::uint8_t> called_read_groups)
      : given_(given != nullptr && !given->empty() ? given : nullptr),
        called_read_groups_(called_read_groups),
        contig_(contig),
        spans_(spans.begin(), spans.end()),
        options_(options),
        engines_(engines),
        sink_(sink),
        ploidy_(options.ploidy_regions, contig.name, options.sample_ploidy),
        iterator_(contig.index, contig.length(), options.regions),
        // Every position is output in reference-confidence mode, so nothing is skipped there.
        margin_(options.emits_reference_confidence() ? 0 : kTraversalMargin) {}

  /// Takes the next reads (coordinate order, whole alignment-start stacks) and calls what they
  /// complete, on the activity thread, while the caller converts the next ones.
  void add(std::vector<CallRead>&& chunk) {
    wait_for(activity_, "waiting for activity");
    activity_ = std::async(stage_launch_, [this, chunk = std::move(chunk)]() mutable {
      activity_arena_.execute([&] { take(std::move(chunk)); });
    });
  }

  /// No more reads: the rest of the contig.
  void finish() {
    wait_for(activity_, "waiting for activity");
    activity_arena_.execute([&] { advance(contig_.length(), true); });
    while (!in_flight_.empty()) retire_oldest_batch();
    last_engines_ = {};
    last_alignment_ = {};
    last_assembly_ = {};
    wait_for_writing();
  }

 private:
  /// The activity thread: the chunk into the window, the activity it completes, the regions
  /// found to the assembly thread.
  void take(std::vector<CallRead>&& chunk) {
    for (const CallRead& read : chunk) max_span_ = std::max(max_span_, read.end() - read.start);
    reads_.append(std::move(chunk));
    if (reads_.empty()) return;
    // Every read starting at or before the last one is here: activity is complete below
    // last start + 1 - margin (the margin: a read up to that far ahead covers a position).
    advance(reads_.back().start + 1 - margin_, false);
  }

  void advance(std::int64_t complete_to, bool last) {
    const auto started = std::chrono::steady_clock::now();
    if (complete_to > activity_next_) {
      // The given records this step's activity and traversal reach, and the regions it ends
      // (none beyond the last span: the contig's end is no reason to read them all).
      if (given_ && !spans_.empty()) {
        given_->load_through(std::min(complete_to, spans_.back().end) + kTraversalMargin,
                             given_needed_from());
      }
      std::vector<TraversalSpan> spans = clipped_spans(spans_, activity_next_, complete_to);
      if (margin_ > 0) spans = covered_spans(spans, reads_, max_span_, given_spans_near(spans));
      add_activity(contig_, reads_, spans, max_span_, options_, ploidy_, given_, iterator_,
                   regions_);
      activity_next_ = complete_to;
    }
    if (last) {
      iterator_.finish();
      while (auto region = iterator_.next_ready()) regions_.push_back(*region);
    }
    engines_.record("activity", started);
    const std::size_t batch_size = std::max<std::size_t>(1, options_.regions_per_batch);
    while (regions_.size() >= batch_size || (last && !regions_.empty())) {
      const std::size_t count = std::min(batch_size, regions_.size());
      std::vector<AssemblyRegion> batch(regions_.begin(),
                                        regions_.begin() + static_cast<std::ptrdiff_t>(count));
      regions_.erase(regions_.begin(), regions_.begin() + static_cast<std::ptrdiff_t>(count));
      last_region_end_ = batch.back().end;
      call_batch(std::move(batch));
    }
    timed_phase(&engines_.times, "dropping reads", [&] { drop_finished_reads(); });
  }

  /// The given records within kTraversalMargin of `spans` (and some before them).
  std::span<const ContigInterval> given_spans_near(std::span<const TraversalSpan> spans) const {
    if (spans.empty() || !given_) return {};
    const auto [first, end] = given_->records_reaching(spans.front().start - kTraversalMargin,
                                                       spans.back().end + kTraversalMargin);
    return std::span<const ContigInterval>(given_->spans()).subspan(first, end - first);
  }

  /// Reads that end before every position still to be traversed (with the margin of the
  /// covered stretches) and before every region still to be called.
  void drop_finished_reads() {
    std::int64_t needed_from = activity_next_ - margin_;
    const std::int64_t next_region = regions_.empty() ? last_region_end_ - options_.regions.padding
                                                      : regions_.front().padded_start;
    // Batches start in genomic order: the oldest in flight reads from furthest back.
    const std::int64_t held_from = in_flight_.empty() ? needed_from : in_flight_.front().start;
    needed_from = std::min({needed_from, next_region, held_from});
    reads_.drop_front(
        reads_.leading([&](const CallRead& read) { return read.end() <= needed_from; }));
    if (given_) given_->release_before(given_needed_from());
  }

  /// The first position a query of the given records may reach from now on: the traversal
  /// looks kTraversalMargin back from the next position (of the spans: a traversal starting
  /// late in the contig needs nothing before it), and the regions not yet batched from their
  /// padded starts.
  std::int64_t given_needed_from() const {
    // The spans are sorted and disjoint: the first ending after the next position holds it.
    const auto span = std::upper_bound(
        spans_.begin(), spans_.end(), activity_next_,
        [](std::int64_t position, const TraversalSpan& s) { return position < s.end; });
    const std::int64_t next =
        span == spans_.end() ? contig_.length() : std::max(span->start, activity_next_);
    return std::min(next - kTraversalMargin,
                    regions_.empty() ? next : regions_.front().padded_start);
  }

  /// Starts the batch through the stages, each taking one batch at a time in genomic order and
  /// all the cores for it: its assembly after the previous batch's (the oldest batch, which the
  /// others wait for, is done first rather than sharing the cores with later ones), its
  /// alignment (haplotypes to the reference, read preparation) after its assembly and the
  /// previous batch's alignment, its likelihoods (PairHMM, realignment, genotyping) after its
  /// alignment and the previous batch's likelihoods (the deletions carried from region to region,
  /// and one PairHMM queue), then its writing after the previous batch's: so one batch is
  /// assembled while the one before is aligned and the one before that scored. The activity
  /// thread goes on meanwhile; it waits only when kBatchesInFlight batches are not yet written.
  /// The window is only touched here: each region's reads are found first (pointers into the
  /// window, which keeps them until the batch is written).
  void call_batch(std::vector<AssemblyRegion> regions) {
    engines_.regions += regions.size();
    std::vector<RegionWork> works(regions.size());
    const bool reference_confidence = options_.emits_reference_confidence();
    for (std::size_t i = 0; i < regions.size(); ++i) {
      works[i].region = regions[i];
      works[i].ploidy = ploidy_.at(regions[i].start, regions[i].end);
      works[i].has_work = works[i].region.is_active;
      if (given_ && works[i].has_work) {
        const AssemblyRegion& region = works[i].region;
        works[i].given_events =
            given_->events_for_region({region.padded_start, region.padded_end - 1}, region.start);
      }
      if (works[i].has_work) ++engines_.active_regions;
    }
    timed_phase(&engines_.times, "region reads", [&] {
      oneapi::tbb::parallel_for(std::size_t{0}, works.size(), [&](std::size_t i) {
        RegionWork& work = works[i];
        if (work.region.is_active || reference_confidence) {
          work.window_reads = region_reads(reads_, max_span_, work.region,
                                           options_.max_reads_per_region, called_read_groups_);
        }
      });
    });
    while (in_flight_.size() >= kBatchesInFlight) retire_oldest_batch();
    const std::int64_t start = works.front().region.padded_start;
    // Every task that works on the batch, the gVCF model beside them included, holds it: on an
    // error, no task is left with the regions of a batch another has freed.
    const auto batch = std::make_shared<std::vector<RegionWork>>(std::move(works));
    // gVCF mode: the inactive regions' reference model needs nothing of the batch's computation,
    // so it starts now and runs beside it.
    std::shared_future<double> inactive_model;
    if (reference_confidence) {
      inactive_model =
          std::async(std::launch::async, [&contig = contig_, &options = options_, batch] {
            return seconds_of([&] { model_regions(*batch, contig, options, false); });
          }).share();
    }
    // Each stage in an arena of its own: a thread waiting for its parallel loop runs only its
    // own stage's tasks, so no stage waits behind another's long task.
    const std::shared_future<void> previous_assembly = last_assembly_;
    last_assembly_ = std::async(stage_launch_, [this, batch, previous_assembly] {
                       wait_for(previous_assembly, "waiting for the previous assembly");
                       assembly_arena_.execute([&] { assemble_batch(*batch); });
                     }).share();
    const std::shared_future<void> assembled = last_assembly_;
    const std::shared_future<void> previous_alignment = last_alignment_;
    last_alignment_ = std::async(stage_launch_, [this, batch, assembled, previous_alignment] {
                        wait_for(assembled, "waiting for assembly");
                        wait_for(previous_alignment, "waiting for the previous alignment");
                        alignment_arena_.execute([&] { align_batch(*batch); });
                      }).share();
    const auto written = std::make_shared<std::promise<void>>();
    const std::shared_future<void> aligned = last_alignment_;
    const std::shared_future<void> previous = last_engines_;
    last_engines_ =
        std::async(stage_launch_, [this, batch, inactive_model, aligned, previous, written] {
          try {
            wait_for(aligned, "waiting for the alignment");
            wait_for(previous, "waiting for the engines");
            engines_arena_.execute([&] { genotype_batch(batch, inactive_model, written); });
          } catch (...) {
            // Not handed to the writing thread: the batch ends here.
            written->set_exception(std::current_exception());
            throw;
          }
        }).share();
    in_flight_.push_back({start, last_engines_, written->get_future().share()});
  }

  /// Waits until the oldest batch in flight is written (running its engines' task here under
  /// --threads 1) and forgets it; rethrows its error.
  void retire_oldest_batch() {
    const BatchInFlight oldest = std::move(in_flight_.front());
    in_flight_.pop_front();
    wait_for(oldest.engines, "waiting for the batches in flight");
    wait_for(oldest.written, "waiting for the batches in flight");
  }

  /// The batch's regions' reads finalised and assembled (on an assembly thread).
  void assemble_batch(std::vector<RegionWork>& works) {
    const auto started = std::chrono::steady_clock::now();
    for_each_region(works, [&](RegionWork& work) {
      assemble_region(work, contig_, work.window_reads, options_);
    });
    engines_.record("assembly", started);
  }

  /// The alignment's thread: the haplotypes of the whole batch aligned to the reference, then
  /// its reads prepared for the PairHMM.
  void align_batch(std::vector<RegionWork>& works) {
    const ScopedStep step(&engines_.timeline, "alignment");
    PhaseTimes* times = &engines_.times;
    timed_phase(times, "smith-waterman", [&] {
      const std::unique_lock lock = engines_.aligner_lock();
      kernels::SwStats sw;
      align_haplotypes(works, engines_.aligner(), &sw);
      add_smith_waterman_stats(engines_.smith_waterman, sw);
    });
    timed_phase(times, "read preparation", [&] {
      for_each_region(works, [&](RegionWork& work) { trim_to_calling_window(work, options_); });
    });
    if (given_) {
      timed_phase(times, "smith-waterman", [&] {
        const std::unique_lock lock = engines_.aligner_lock();
        kernels::SwStats sw;
        add_given_allele_haplotypes(works, engines_.aligner(), options_.max_mnp_distance, &sw);
        add_smith_waterman_stats(engines_.smith_waterman, sw);
      });
    }
    timed_phase(times, "read preparation", [&] {
      for_each_region(works,
                      [&](RegionWork& work) { prepare_genotyping(work, contig_, options_); });
    });
  }

  /// The engines' thread: PairHMM, realignment and genotyping of the whole batch, then the batch
  /// to the sink on the writing thread (after the previous batch's writing).
  void genotype_batch(const std::shared_ptr<std::vector<RegionWork>>& batch,
                      const std::shared_future<double>& inactive_model,
                      const std::shared_ptr<std::promise<void>>& written) {
    const ScopedStep step(&engines_.timeline, "engines");
    std::vector<RegionWork>& works = *batch;
    PhaseTimes* times = &engines_.times;
    timed_phase(times, "pairhmm",
                [&] { compute_likelihoods(works, engines_.pairhmm(), engines_.likelihoods); });
    timed_phase(times, "likelihood filtering", [&] {
      for_each_region(works, [&](RegionWork& work) { finish_likelihoods(work, options_); });
    });
    timed_phase(times, "read realignment",
                [&] { realign_reads(works, engines_, options_.bam_output.enabled); });
    timed_phase(times, "genotyping", [&] { genotype_regions(works); });
    if (options_.bam_output.enabled) {
      timed_phase(times, "haplotype BAM records", [&] {
        for_each_region(works, [&](RegionWork& work) {
          work.bam_records = haplotype_bam_records(work, contig_, options_.bam_output.type);
        });
      });
    }
    // Batch k goes to the sink on its own thread while batch k + 1 is computed, after its
    // reference model in gVCF mode; "writing" counts only the time the engines wait for it.
    wait_for_writing();
    const bool reference_confidence = options_.emits_reference_confidence();
    writing_ =
        std::async(std::launch::async, [&sink = sink_, &contig = contig_, &options = options_,
                                        &timeline = engines_.timeline, reference_confidence,
                                        inactive_model, batch, written] {
          try {
            const ScopedStep step(&timeline, "writing");
            double model_seconds = 0;
            if (reference_confidence) {
              model_seconds = inactive_model.get() +
                              seconds_of([&] { model_regions(*batch, contig, options, true); });
            }
            for (RegionWork& work : *batch) emit_region(work, sink);
            // The batch's memory is freed on every core, not on this thread.
            oneapi::tbb::parallel_for(std::size_t{0}, batch->size(),
                                      [&](std::size_t i) { (*batch)[i] = {}; });
            written->set_value();
            return model_seconds;
          } catch (...) {
            written->set_exception(std::current_exception());
            throw;
          }
        });
  }

  /// GenotypingEngine carries the emitted deletions from site to site; they matter only at sites
  /// with a '*' allele. Every region is genotyped at once as if no earlier region had left a
  /// deletion, then, in genomic order, a region where an earlier deletion covers one of its
  /// uncovered '*' sites is genotyped again with the deletions in force: the calls are those of
  /// one pass in genomic order.
  void genotype_regions(std::vector<RegionWork>& works) {
    oneapi::tbb::parallel_for(std::size_t{0}, works.size(), [&](std::size_t i) {
      if (!works[i].has_work) return;
      UpstreamDeletions own;
      genotype_region(works[i], contig_, options_, own);
    });
    for (RegionWork& work : works) {
      if (!work.has_work) continue;
      const bool depends_on_earlier =
          std::any_of(work.uncovered_spanning_deletion_sites.begin(),
                      work.uncovered_spanning_deletion_sites.end(),
                      [&](std::int64_t site) { return deletions_.covers(site); });
      if (depends_on_earlier) {
        work.calls.clear();
        work.uncovered_spanning_deletion_sites.clear();
        genotype_region(work, contig_, options_, deletions_);
      } else {
        for (const VariantCall& call : work.calls) deletions_.record(call);
      }
    }
  }

  /// Waits for a stage's task, when it has one, timed as `phase`; rethrows its error. A
  /// deferred task (one thread) runs here, and its time is its own phases'.
  template <typename Future>
  void wait_for(Future& stage, std::string_view phase) {
    if (!stage.valid()) return;
    if (stage.wait_for(std::chrono::seconds(0)) == std::future_status::deferred) {
      stage.get();
      return;
    }
    const auto waited = std::chrono::steady_clock::now();
    stage.get();
    engines_.times.add(phase, seconds_since(waited));
  }

  /// The stages' threads; with one thread allowed (--threads 1), the stages run in turn on the
  /// caller's thread, each when the next needs it done.
  static std::launch stage_launch() {
    return oneapi::tbb::global_control::active_value(
               oneapi::tbb::global_control::max_allowed_parallelism) > 1
               ? std::launch::async
               : std::launch::deferred;
  }

  /// The writing thread's batch (called on the engines' thread, or once it is idle).
  void wait_for_writing() {
    if (!writing_.valid()) return;
    const auto waited = std::chrono::steady_clock::now();
    const double model_seconds = writing_.get();
    if (options_.emits_reference_confidence()) {
      engines_.times.add("reference model (writing thread)", model_seconds);
    }
    engines_.times.add("writing", seconds_since(waited));
  }

  const std::launch stage_launch_ = stage_launch();
  GivenAlleles* given_;  ///< --alleles on this contig; null without (or none there)
  std::span<const std::uint8_t> called_read_groups_;  ///< --sample-name's; empty: all
  ContigReference contig_;  ///< index and a view of the bases (owned by the caller)
  std::vector<TraversalSpan> spans_;
  const HaplotypeCallerOptions& options_;
  CallerEngines& engines_;
  CallSink& sink_;
  ContigPloidy ploidy_;  ///< --ploidy-regions on this contig
  AssemblyRegionIterator iterator_;
  std::int64_t margin_;
  ReadWindow reads_;  ///< coordinate order; each read stays in place until dropped
  std::int64_t max_span_ = 0;
  std::int64_t activity_next_ = 0;      ///< first position whose activity is not yet computed
  std::deque<AssemblyRegion> regions_;  ///< ready, not yet called
  std::int64_t last_region_end_ = 0;
  /// Batches not yet written at most (their regions, and the window's reads from the first's
  /// start on, are held).
  static constexpr std::size_t kBatchesInFlight = 4;
  /// A batch between the activity thread and the sink.
  struct BatchInFlight {
    std::int64_t start;                ///< its first padded position: it reads from there on
    std::shared_future<void> engines;  ///< its engines' task (ends once its writing is started)
    std::shared_future<void> written;  ///< ready once it is written
  };
  UpstreamDeletions deletions_;  ///< engines' tasks only (one at a time)
  // The activity of each chunk is the pipeline's critical path (the caller waits for it before
  // handing on the next chunk; assembly and the engines keep up with it), so idle threads take
  // its tasks first.
  oneapi::tbb::task_arena activity_arena_{oneapi::tbb::task_arena::automatic, 1,
                                          oneapi::tbb::task_arena::priority::high};
  oneapi::tbb::task_arena assembly_arena_;
  oneapi::tbb::task_arena alignment_arena_;
  oneapi::tbb::task_arena engines_arena_;
  // The stages' tasks, each waited for before anything it uses goes (they are declared after
  // it); a later stage's task waits for the earlier stages' of its batch, so the later stages are
  // declared first (and waited for last).
  std::future<double> writing_;  ///< the batch being written; gives its reference model's seconds
  std::shared_future<void> last_engines_;  ///< the latest batch's engines (each waits for the last)
  std::shared_future<void> last_alignment_;  ///< the latest batch's alignment (the same)
  std::shared_future<void> last_assembly_;   ///< the latest batch's assembly (the same)
  std::deque<BatchInFlight> in_flight_;      ///< oldest first
  std::future<void> activity_;               ///< the chunk being taken in
};

CallerEngines::CallerEngines(kernels::Backend backend, const kernels::PairHmmTuning& pairhmm_tuning,
                             const kernels::SwTuning& sw_tuning, const CallerEngines* aligner_of) {
  std::promise<std::shared_ptr<Devices>> made;
  made.set_value(make_devices(backend, pairhmm_tuning, sw_tuning,
                              aligner_of ? aligner_of->devices().aligner : SharedAligner{}));
  devices_ = made.get_future().share();
}

CallerEngines::CallerEngines(std::function<kernels::Backend()> device,
                             const kernels::PairHmmTuning& pairhmm_tuning,
                             const kernels::SwTuning& sw_tuning)
    : devices_(
          std::async(std::launch::async, [device = std::move(device), pairhmm_tuning, sw_tuning] {
            return make_devices(device(), pairhmm_tuning, sw_tuning, SharedAligner{});
          }).share()) {}

std::shared_ptr<CallerEngines::Devices> CallerEngines::make_devices(
    kernels::Backend backend, const kernels::PairHmmTuning& pairhmm_tuning,
    const kernels::SwTuning& sw_tuning, SharedAligner aligner) {
  if (!aligner.engine) {
    aligner = {std::make_shared<kernels::SmithWaterman>(backend, sw_tuning),
               std::make_shared<std::mutex>()};
  }
  return std::make_shared<Devices>(Devices{
      .backend = backend,
      .pairhmm = kernels::PairHmm(backend, kernels::PairHmmPrecision::kAuto, pairhmm_tuning),
      .aligner = std::move(aligner)});
}

ContigCaller::ContigCaller(const ContigReference& contig, std::span<const TraversalSpan> spans,
                           const HaplotypeCallerOptions& options, CallerEngines& engines,
                           CallSink& sink, GivenAlleles* given,
                           std::span<const std::uint8_t> called_read_groups)
    : state_(std::make_unique<State>(contig, spans, options, engines, sink, given,
                                     called_read_groups)) {}

ContigCaller::~ContigCaller() = default;

void ContigCaller::add(std::vector<CallRead>&& reads) { state_->add(std::move(reads)); }

void ContigCaller::finish() { state_->finish(); }

}  // namespace gpp::stages::call
