#include "pipeline/variant_calling.hpp"

#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "core/elapsed.hpp"
#include "core/error.hpp"
#include "io/genome/contig_reader.hpp"
#include "pipeline/log.hpp"
#include "stages/call/call_reads.hpp"

namespace gpp::pipeline {

namespace {

using stages::call::TraversalSpan;

/// Reads turned into the caller's records at a time (a chunk ends at a change of start).
constexpr std::size_t kCallReadsPerChunk = 1 << 18;

}  // namespace

bool is_alternate_contig(std::string_view name) {
  return name.ends_with("_alt") || name.starts_with("HLA-");
}

void check_reference(const io::Header& header, const std::string& input,
                     const io::Reference& reference, const std::vector<bool>& needed,
                     bool warn_unused) {
  std::vector<std::string> unused_missing;
  for (std::size_t c = 0; c < header.contigs().size(); ++c) {
    const io::Contig& contig = header.contigs()[c];
    const std::int64_t length = reference.contig_length(contig.name);
    if (length < 0) {
      if (needed[c]) {
        throw Error(reference.path() + ": the reference has no contig '" + contig.name +
                    "', on which " + input + " has reads or an interval lies");
      }
      unused_missing.push_back(contig.name);
    } else if (length != contig.length) {
      throw Error(reference.path() + ": contig '" + contig.name + "' is " + std::to_string(length) +
                  " bp here but " + std::to_string(contig.length) + " bp in the header of " +
                  input);
    }
  }
  if (warn_unused && !unused_missing.empty()) {
    log::warning(std::to_string(unused_missing.size()) + " contig(s) of the header of " + input +
                 " are not in " + reference.path() + " (e.g. '" + unused_missing.front() +
                 "'); no read or interval uses them");
  }
}

namespace {

std::optional<io::KnownVariants> open_variant_input(const std::string& path,
                                                    const io::Header& header,
                                                    const std::string& input) {
  if (path.empty()) return std::nullopt;
  io::KnownVariants known(path);
  const std::vector<std::string> contigs = known.contigs();
  const bool shared = std::any_of(contigs.begin(), contigs.end(), [&](const std::string& name) {
    return header.contig_index(name) >= 0;
  });
  if (!contigs.empty() && !shared) {
    throw Error(path + ": no contig in common with the header of " + input + " (it has '" +
                contigs.front() + "', the header '" +
                (header.contigs().empty() ? std::string() : header.contigs().front().name) + "')");
  }
  return known;
}

}  // namespace

CallingInputs open_calling_inputs(const std::string& dbsnp, const std::string& alleles,
                                  const io::Header& header, const std::string& input) {
  return {open_variant_input(dbsnp, header, input), open_variant_input(alleles, header, input)};
}

void check_ploidy_regions(std::span<const stages::call::PloidyRegion> regions,
                          const io::Header& header, const std::string& input) {
  for (const stages::call::PloidyRegion& region : regions) {
    const int c = header.contig_index(region.contig);
    if (c < 0 || region.end > header.contigs()[static_cast<std::size_t>(c)].length) {
      throw Error("--ploidy-regions: " + region.contig + ":" + std::to_string(region.start + 1) +
                  "-" + std::to_string(region.end) + " is not on a contig of the header of " +
                  input);
    }
  }
}

std::vector<bool> contigs_in_use(const io::ReadBatch& reads, const io::Header& header,
                                 const std::vector<io::Interval>& intervals) {
  std::vector<bool> needed(header.contigs().size());
  if (!intervals.empty()) {
    for (const io::Interval& interval : intervals) {
      needed[static_cast<std::size_t>(header.contig_index(interval.contig))] = true;
    }
    return needed;
  }
  for (std::size_t i = 0; i < reads.size(); ++i) {
    if (reads.tid[i] >= 0) needed[static_cast<std::size_t>(reads.tid[i])] = true;
  }
  return needed;
}

std::size_t regions_per_batch(std::uint64_t budget) {
  // Measured at 30x, 2 cores: resident memory grows by about 0.5 MiB per region of a batch with
  // two batches in flight, so about 1 MiB with the caller's four; half of the budget for them.
  constexpr std::uint64_t kBytesPerRegion = 1 << 20;
  constexpr std::uint64_t kFewest = 128;  // fewer would starve a GPU
  return static_cast<std::size_t>(std::clamp<std::uint64_t>(budget / 2 / kBytesPerRegion, kFewest,
                                                            stages::call::kDefaultRegionsPerBatch));
}

namespace {

// The samples of the read groups (SM).
// @throws gpp::Error naming `input` when there is no read group or one has no SM
std::set<std::string> read_group_samples(const io::Header& header, const std::string& input) {
  std::set<std::string> samples;
  for (const io::ReadGroup& group : header.read_groups()) {
    if (group.sample.empty()) {
      throw Error(input + ": read group '" + group.id +
                  "' has no sample (SM); the caller needs one");
    }
    samples.insert(group.sample);
  }
  if (samples.empty()) {
    throw Error(input + ": no read group (@RG with SM) in the header; the caller needs the sample");
  }
  return samples;
}

}  // namespace

std::string called_sample(const AlignmentInputs& inputs, const std::string& sample_name) {
  for (std::size_t i = 0; i < inputs.paths().size(); ++i) {
    read_group_samples(inputs.input_header(i), inputs.paths()[i]);
  }
  return called_sample(inputs.header(), inputs.name(), sample_name);
}

std::string called_sample(const io::Header& header, const std::string& input,
                          const std::string& sample_name) {
  const std::set<std::string> samples = read_group_samples(header, input);
  std::string names;
  for (const std::string& sample : samples) names += (names.empty() ? "'" : ", '") + sample + "'";
  if (!sample_name.empty() && !samples.contains(sample_name)) {
    throw Error(input + ": --sample-name '" + sample_name +
                "' is not a sample of its read groups (" + names + ")");
  }
  if (!sample_name.empty()) return sample_name;
  if (samples.size() > 1) {
    throw Error(input + ": " + std::to_string(samples.size()) + " samples in the read groups (" +
                names + "); the caller calls one: choose it with --sample-name");
  }
  return *samples.begin();
}

std::vector<std::uint8_t> called_read_groups(const io::Header& header, const std::string& sample) {
  std::vector<std::uint8_t> called;
  bool all = true;
  for (const io::ReadGroup& group : header.read_groups()) {
    called.push_back(group.sample == sample ? 1 : 0);
    all = all && called.back() != 0;
  }
  if (all) called.clear();
  return called;
}

struct CallingPass::State {
  const io::Header& header;
  std::string input;
  const io::Reference& reference;
  const stages::call::HaplotypeCallerOptions& options;
  stages::call::CallerEngines& engines;
  stages::call::CallSink& sink;
  bool has_intervals = false;
  std::vector<std::vector<TraversalSpan>> interval_spans;  ///< per contig, from -L
  std::vector<std::int64_t> lengths;                       ///< of the header's contigs
  std::vector<std::uint8_t> called_read_groups;  ///< of the sample called; empty: all of them
  stages::call::ReadFilterContext filters;

  std::int32_t current = -1;  ///< the contig being called (or skipped); -1 before the first
  std::string bases;          ///< its reference, upper case
  std::vector<TraversalSpan> spans;
  const io::KnownVariants* given_alleles = nullptr;  ///< --alleles, or null
  /// Its records on the contig being called (before `caller`, which reads them until it goes).
  stages::call::GivenAlleles given;
  std::unique_ptr<stages::call::ContigCaller> caller;  ///< null where the contig is not traversed
  std::vector<io::ReadBatch::RowRef> pending_rows;     ///< rows of the batches being added
  std::vector<stages::call::CallRead> carry;           ///< the last alignment-start stack so far
  std::int64_t last_position = -1;
  std::vector<bool> used;
  io::ContigReader contig_reader;  ///< the reference's contigs, read in parallel
  /// Converting and filtering the next reads runs beside the caller's activity, the two steps
  /// every chunk goes through in turn (the critical path): their tasks come first.
  oneapi::tbb::task_arena intake{oneapi::tbb::task_arena::automatic, 1,
                                 oneapi::tbb::task_arena::priority::high};

  static std::vector<std::int64_t> contig_lengths(const io::Header& header) {
    std::vector<std::int64_t> lengths;
    for (const io::Contig& contig : header.contigs()) lengths.push_back(contig.length);
    return lengths;
  }

  State(const io::Header& header_, const std::string& input_, const std::string& sample,
        const io::Reference& reference_, const std::vector<io::Interval>& intervals,
        const stages::call::HaplotypeCallerOptions& options_, stages::call::CallerEngines& engines_,
        stages::call::CallSink& sink_, const io::KnownVariants* given_alleles_)
      : header(header_),
        input(input_),
        reference(reference_),
        options(options_),
        engines(engines_),
        sink(sink_),
        has_intervals(!intervals.empty()),
        interval_spans(header_.contigs().size()),
        lengths(contig_lengths(header_)),
        called_read_groups(pipeline::called_read_groups(header_, sample)),
        filters{lengths, header_.read_groups().size(), options_.min_mapping_quality,
                options_.max_read_length, options_.disabled_read_filters},
        used(header_.contigs().size(), false),
        contig_reader(reference_.path()) {
    given_alleles = given_alleles_;
    for (const io::Interval& interval : intervals) {
      interval_spans[static_cast<std::size_t>(header.contig_index(interval.contig))].push_back(
          {interval.start, interval.end});
    }
    check_ploidy_regions(options.ploidy_regions, header, input);
  }

  /// Contigs never traversed: the alternate ones with --no-alt-contigs.
  bool skipped(std::size_t c) const {
    return options.skip_alternate_contigs && is_alternate_contig(header.contigs()[c].name);
  }

  /// Contigs traversed even without reads: those with intervals, or in reference-confidence mode
  /// without -L every contig of the reference.
  bool traversed_without_reads(std::size_t c) const {
    if (skipped(c)) return false;
    if (has_intervals) return !interval_spans[c].empty();
    return options.emits_reference_confidence() &&
           reference.contig_length(header.contigs()[c].name) >= 0;
  }

  void start_contig(std::size_t c) {
    const io::Contig& contig = header.contigs()[c];
    spans = skipped(c)      ? std::vector<TraversalSpan>{}
            : has_intervals ? interval_spans[c]
                            : std::vector<TraversalSpan>{{0, contig.length}};
    if (spans.empty()) return;  // reads outside every interval, or on a contig not called
    used[c] = true;
    if (reference.contig_length(contig.name) < 0) {
      throw Error(reference.path() + ": the reference has no contig '" + contig.name +
                  "', on which " + input + " has reads or an interval lies");
    }
    const auto started = std::chrono::steady_clock::now();
    intake.execute([&] {
      bases = contig_reader.read(contig.name,
                                 std::min(contig.length, reference.contig_length(contig.name)));
      oneapi::tbb::parallel_for(
          oneapi::tbb::blocked_range<std::size_t>(0, bases.size(), 1 << 20),
          [&](const oneapi::tbb::blocked_range<std::size_t>& range) {
            for (std::size_t i = range.begin(); i != range.end(); ++i) {
              const char c = bases[i];  // toupper() of the C locale, without a call per base
              bases[i] = c >= 'a' && c <= 'z' ? static_cast<char>(c - ('a' - 'A')) : c;
            }
          });
    });
    engines.times.add("reference", seconds_since(started));
    if (given_alleles) {
      // Read a piece at a time as the traversal reaches it (a dbSNP-sized file holds millions
      // of records per contig).
      given = stages::call::GivenAlleles(
          [file = given_alleles, name = contig.name](std::int64_t from, std::int64_t to) {
            return file->window(name, from, to).records();
          },
          contig.length, options.force_call_filtered_alleles);
    }
    caller = std::make_unique<stages::call::ContigCaller>(
        stages::call::ContigReference{static_cast<std::int32_t>(c), bases, contig.name}, spans,
        options, engines, sink, given_alleles ? &given : nullptr, called_read_groups);
  }

  void finish_contig() {
    if (caller) {
      hand_over(std::move(carry));
      carry.clear();
      caller->finish();
      caller.reset();
    }
    carry.clear();
  }

  /// Finishes the current contig and those before `next` that are traversed without reads,
  /// then starts `next` (header order; next = the contig count finishes them all).
  void move_to(std::size_t next) {
    finish_contig();
    for (auto c = static_cast<std::size_t>(current + 1); c < next; ++c) {
      if (!traversed_without_reads(c)) continue;
      start_contig(c);
      finish_contig();
    }
    current = static_cast<std::int32_t>(next);
    last_position = -1;
    if (next < header.contigs().size()) start_contig(next);
  }

  /// The caller's filters and downsampling, then the caller.
  void hand_over(std::vector<stages::call::CallRead>&& reads) {
    if (reads.empty()) return;
    const auto started = std::chrono::steady_clock::now();
    intake.execute([&] { stages::call::select_caller_reads(reads, filters, options); });
    engines.record("read filters", started);
    caller->add(std::move(reads));
  }

  /// The pending rows as the caller's records; the last alignment-start stack waits for the next
  /// rows (the downsampler's stacks stay whole).
  void convert_pending(std::span<const io::ReadBatch* const> sources) {
    if (pending_rows.empty()) return;
    const auto started = std::chrono::steady_clock::now();
    // The carried stack first, the rows converted in place after it.
    std::vector<stages::call::CallRead> chunk(carry.size() + pending_rows.size());
    std::move(carry.begin(), carry.end(), chunk.begin());
    carry.clear();
    intake.execute([&] {
      stages::call::call_reads_into(sources, pending_rows,
                                    std::span(chunk).subspan(chunk.size() - pending_rows.size()),
                                    options.bam_output.enabled);
    });
    pending_rows.clear();
    std::size_t stack = chunk.size();
    while (stack > 0 && chunk[stack - 1].start == chunk.back().start) --stack;
    carry.assign(std::make_move_iterator(chunk.begin() + static_cast<std::ptrdiff_t>(stack)),
                 std::make_move_iterator(chunk.end()));
    chunk.resize(stack);
    engines.record("reads in", started);
    hand_over(std::move(chunk));
  }

  /// GATK's traversal reads those overlapping the padded shards: a read near a span.
  bool near_a_span(const io::ReadBatch& reads, std::size_t i) const {
    const std::int64_t start = reads.pos[i] - options.regions.padding;
    const std::int64_t end = reads.end[i] + options.regions.padding;
    return std::any_of(spans.begin(), spans.end(), [&](const TraversalSpan& span) {
      return start < span.end && end > span.start;
    });
  }

  template <class Rows>
  void add(const Rows& rows) {
    for (std::size_t k = 0; k < rows.size(); ++k) {
      const io::ReadBatch& reads = rows.batch(k);
      const std::size_t row = rows.row(k);
      const std::int32_t tid = reads.tid[row];
      if (tid < 0) continue;  // unmapped: at the end in coordinate order
      if (tid < current || (tid == current && reads.pos[row] < last_position)) {
        throw Error(input + ": the records are not in coordinate order (" +
                    header.contigs()[static_cast<std::size_t>(tid)].name + ":" +
                    std::to_string(reads.pos[row] + 1) + " after " +
                    header.contigs()[static_cast<std::size_t>(current)].name + ":" +
                    std::to_string(last_position + 1) + ")");
      }
      if (tid != current) {
        convert_pending(rows.sources());
        move_to(static_cast<std::size_t>(tid));
      }
      last_position = reads.pos[row];
      if (!caller || !near_a_span(reads, row)) continue;
      pending_rows.push_back(rows.ref(k));
      if (pending_rows.size() >= kCallReadsPerChunk) convert_pending(rows.sources());
    }
    convert_pending(rows.sources());  // the batches' rows do not outlive this call
  }
};

CallingPass::CallingPass(const io::Header& header, const std::string& input,
                         const std::string& sample, const io::Reference& reference,
                         const std::vector<io::Interval>& intervals,
                         const stages::call::HaplotypeCallerOptions& options,
                         stages::call::CallerEngines& engines, stages::call::CallSink& sink,
                         const io::KnownVariants* given_alleles)
    : state_(std::make_unique<State>(header, input, sample, reference, intervals, options, engines,
                                     sink, given_alleles)) {}

CallingPass::~CallingPass() = default;

void CallingPass::add(const io::ReadBatch& reads, std::span<const std::uint32_t> rows) {
  state_->add(io::RowsOf(reads, rows));
}

void CallingPass::add(const io::RowsAcross& rows) { state_->add(rows); }

void CallingPass::finish() { state_->move_to(state_->header.contigs().size()); }

const std::vector<bool>& CallingPass::contigs_used() const { return state_->used; }

void log_calling_summary(const stages::call::CallerEngines& engines, std::size_t calls,
                         double seconds) {
  log::info("call: " + std::to_string(calls) + " variants from " +
            std::to_string(engines.active_regions) + " active regions (" +
            std::to_string(engines.regions) + " regions) in " + std::to_string(seconds) + " s (" +
            kernels::backend_name(engines.backend()) + ")");
  const kernels::PairHmmStats& hmm = engines.likelihoods;
  const double gpu_seconds = engines.backend() == kernels::Backend::kGpu
                                 ? hmm.compute_seconds + engines.smith_waterman.gpu_kernel_seconds
                                 : 0.0;
  log::info(
      "call phases: " + engines.times.summary() + "; PairHMM " + std::to_string(hmm.pairs) +
      " pairs, " + std::to_string(hmm.cells) + " cells; Smith-Waterman " +
      std::to_string(engines.smith_waterman.cells) + " cells" +
      (engines.backend() == kernels::Backend::kGpu
           ? "; GPU busy " + std::to_string(seconds > 0 ? 100.0 * gpu_seconds / seconds : 0.0) + "%"
           : std::string()));
  log::debug("call timeline: " + engines.timeline.summary());
}

}  // namespace gpp::pipeline
