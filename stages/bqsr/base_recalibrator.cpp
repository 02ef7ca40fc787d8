// BaseRecalibrator counting; see base_recalibrator.hpp.
#include "stages/bqsr/base_recalibrator.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>

#include "core/cigar.hpp"
#include "core/error.hpp"
#include "io/reads/aux_fields.hpp"
#include "kernels/sort/sort_by_key.hpp"
#include "stages/bqsr/baq.hpp"
#include "stages/bqsr/kernel_counting.hpp"
#include "stages/bqsr/read_transform.hpp"
#include "stages/bqsr/recal_math.hpp"

namespace gpp::stages::bqsr {

namespace {

enum class BinTable : std::uint64_t { kQuality = 0, kContext = 1, kCycle = 2 };

/// Packed bin key: table (2 bits) | read group (20) | quality (7) | covariate key (27) | event (2),
/// so that sorting groups equal bins.
std::uint64_t pack_bin_key(BinTable table, int rg, int q, int key, int e) {
  return static_cast<std::uint64_t>(table) << 56 | static_cast<std::uint64_t>(rg) << 36 |
         static_cast<std::uint64_t>(q) << 29 | static_cast<std::uint64_t>(key) << 2 |
         static_cast<std::uint64_t>(e);
}

void add_bin(RecalTables& tables, std::uint64_t packed, std::int64_t observations, double errors) {
  const int e = static_cast<int>(packed & 3);
  const int key = static_cast<int>((packed >> 2) & ((1u << 27) - 1));
  const int q = static_cast<int>((packed >> 29) & 127);
  const int rg = static_cast<int>((packed >> 36) & ((1u << 20) - 1));
  switch (static_cast<BinTable>(packed >> 56)) {
    case BinTable::kQuality:
      tables.quality(rg, q, e).add(observations, errors);
      break;
    case BinTable::kContext:
      tables.context(rg, q, key, e).add(observations, errors);
      break;
    case BinTable::kCycle:
      tables.cycle(rg, q, key, e).add(observations, errors);
      break;
  }
}

/// Scratch buffers reused across the reads one thread counts.
struct ReadScratch {
  std::vector<std::uint8_t> is_event[kEventCount];  // mismatch, insertion, deletion at each offset
  std::vector<double> error[kEventCount];
  std::vector<std::uint8_t> known;
  std::vector<std::uint8_t> baq;
  std::vector<int> context;
  std::vector<int> indel_context;
  std::vector<int> cycle;
  std::vector<int> indel_cycle;
  std::vector<std::uint8_t> event_quals[kEventCount];
};

/// BaseRecalibrationEngine.calculateFractionalErrorArray: inside each run of BAQ-lowered bases
/// (and the base before it, and the first BAQ-certain base after it) the errors are shared evenly.
void fractional_errors(const std::vector<std::uint8_t>& events,
                       const std::vector<std::uint8_t>* uncertain, std::vector<double>& out) {
  const int length = static_cast<int>(events.size());
  out.assign(events.begin(), events.end());
  if (uncertain == nullptr) return;
  auto spread = [&](int i, int block_start) {
    const int from = std::max(0, block_start - 1);
    int total = 0;
    for (int j = from; j <= i; ++j) total += events[static_cast<std::size_t>(j)];
    for (int j = from; j <= i; ++j)
      out[static_cast<std::size_t>(j)] =
          static_cast<double>(total) / static_cast<double>(i - from + 1);
  };
  int block_start = -1;
  int i = 0;
  for (; i < length; ++i) {
    if (!(*uncertain)[static_cast<std::size_t>(i)]) {
      if (block_start >= 0) {
        spread(i, block_start);
        block_start = -1;
      }
    } else if (block_start < 0) {
      block_start = i;
    }
  }
  if (block_start >= 0) spread(i - 1, block_start);
}

/// The BI/BD qualities of the kept bases, or the default quality when the tag is absent.
void indel_quals(const io::ReadBatch& reads, std::size_t i, const ClippedRead& clipped,
                 const char tag[2], int default_quality, std::vector<std::uint8_t>& out) {
  out.assign(static_cast<std::size_t>(clipped.length), static_cast<std::uint8_t>(default_quality));
  const std::uint8_t* field = io::find_aux_field(reads.read_aux(i), tag);
  if (field == nullptr || field[0] != 'Z') return;
  const char* text = reinterpret_cast<const char*>(field + 1);
  if (std::strlen(text) != reads.seq_length(i)) return;
  for (int k = 0; k < clipped.length; ++k) {
    const char c = text[clipped.first + k];
    // Phred+33 of SAM's qualities ('!'..'~'): the tables' quality axis ends at 93.
    if (c < '!' || c > '~') {
      throw ReadError("read " + std::string(reads.read_name(i)) + " has a " + std::string(tag, 2) +
                      " tag with a character that is not a quality (" +
                      std::to_string(static_cast<int>(static_cast<unsigned char>(c))) + ")");
    }
    out[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(c - 33);
  }
}

/// Adds counts straight into dense tables (the CPU path).
struct DenseSink {
  RecalTables& tables;
  void add(BinTable table, int rg, int q, int key, int e, double error) {
    switch (table) {
      case BinTable::kQuality:
        tables.quality(rg, q, e).add(1, error);
        break;
      case BinTable::kContext:
        tables.context(rg, q, key, e).add(1, error);
        break;
      case BinTable::kCycle:
        tables.cycle(rg, q, key, e).add(1, error);
        break;
    }
  }
};

/// Records one packed key per count, with its (0/1) error, for sorting and segmented reduction.
struct KeySink {
  std::vector<std::uint64_t>& keys;
  std::vector<std::uint8_t>& errors;
  void add(BinTable table, int rg, int q, int key, int e, double error) {
    keys.push_back(pack_bin_key(table, rg, q, key, e));
    errors.push_back(error != 0.0);
  }
};

template <typename Sink>
void count_read(const io::ReadBatch& reads, std::size_t i, int rg, const GenomeContext& genome,
                const CovariateOptions& options, const CountingOptions& counting, Sink& sink,
                ReadScratch& scratch) {
  const ClippedRead clipped = clip_for_recalibration(reads, i);
  if (clipped.empty()) return;  // the whole read was adaptor
  const std::int32_t tid = reads.tid[i];
  const std::string& contig = genome.contig_bases[static_cast<std::size_t>(tid)];
  const std::size_t length = static_cast<std::size_t>(clipped.length);
  const std::string_view bases =
      reads.read_seq(i).substr(static_cast<std::size_t>(clipped.first), length);
  const std::span<const std::uint8_t> quals =
      reads.read_qual(i).subspan(static_cast<std::size_t>(clipped.first), length);
  const bool reverse = reads.flag[i] & io::flag::kReverse;
  // calculateIsSNPOrIndel: BaseUtils.basesAreEqual over M/=/X (IUPAC reference bases mismatch);
  // a deletion is an event at the base before it (after it on the reverse strand), an insertion
  // at the base before it (after it on the reverse strand).
  for (auto& events : scratch.is_event) events.assign(length, 0);
  auto mark = [&](int e, long index) {
    if (index >= 0 && index < static_cast<long>(length))
      scratch.is_event[e][static_cast<std::size_t>(index)] = 1;
  };
  std::int64_t ref_pos = clipped.start;
  long read_pos = 0;
  int n_events = 0;
  for (const std::uint32_t packed : clipped.cigar) {
    const CigarOp op = cigar_op(packed);
    const long op_length = static_cast<long>(cigar_length(packed));
    if (op == CigarOp::kMatch || op == CigarOp::kSequenceMatch ||
        op == CigarOp::kSequenceMismatch) {
      for (long k = 0; k < op_length; ++k) {
        const std::int64_t r = ref_pos + k;
        const char ref_base = r < static_cast<std::int64_t>(contig.size())
                                  ? contig[static_cast<std::size_t>(r)]
                                  : 'N';
        const bool mismatch =
            base_code(bases[static_cast<std::size_t>(read_pos + k)]) != base_code(ref_base);
        scratch.is_event[0][static_cast<std::size_t>(read_pos + k)] = mismatch;
        n_events += mismatch;
      }
    } else if (op == CigarOp::kDeletion) {
      mark(2, reverse ? read_pos : read_pos - 1);
    } else if (op == CigarOp::kInsertion) {
      if (!reverse) mark(1, read_pos - 1);
      if (reverse) mark(1, read_pos + op_length);
    }
    if (consumes_query(op)) read_pos += op_length;
    if (consumes_reference(op)) ref_pos += op_length;
  }
  for (int e = 1; e < kEventCount; ++e)
    n_events +=
        static_cast<int>(std::count(scratch.is_event[e].begin(), scratch.is_event[e].end(), 1));
  const std::vector<std::uint8_t>* uncertain = nullptr;
  std::vector<std::uint8_t> lowered;
  if (counting.enable_baq && n_events > 0) {
    if (!baq_qualities(contig, clipped.start, clipped.cigar, clipped.leading_hard_clip,
                       clipped.trailing_hard_clip, bases, quals, scratch.baq)) {
      return;  // GATK skips reads that cannot be BAQ'ed
    }
    lowered.resize(length);
    for (std::size_t k = 0; k < length; ++k) lowered[k] = scratch.baq[k] != quals[k];
    uncertain = &lowered;
  }
  known_site_mask(clipped, genome.known_sites[static_cast<std::size_t>(tid)], scratch.known);
  const CovariateRead covariate_read{
      bases, quals, reverse,
      (reads.flag[i] & io::flag::kPaired) && (reads.flag[i] & io::flag::kSecondOfPair)};
  context_keys(covariate_read, options.mismatches_context_size, options.low_quality_tail,
               scratch.context);
  cycle_keys(covariate_read, options.maximum_cycle_value, scratch.cycle,
             counting.indel_tables ? &scratch.indel_cycle : nullptr);
  const int event_count = counting.indel_tables ? kEventCount : 1;
  if (counting.indel_tables) {
    context_keys(covariate_read, options.indels_context_size, options.low_quality_tail,
                 scratch.indel_context);
    indel_quals(reads, i, clipped, "BI", options.insertions_default_quality,
                scratch.event_quals[1]);
    indel_quals(reads, i, clipped, "BD", options.deletions_default_quality, scratch.event_quals[2]);
  }
  for (int e = 0; e < event_count; ++e)
    fractional_errors(scratch.is_event[e], uncertain, scratch.error[e]);
  for (std::size_t k = 0; k < length; ++k) {
    if (base_code(bases[k]) < 0 || quals[k] < kMinUsableQ || scratch.known[k]) continue;
    for (int e = 0; e < event_count; ++e) {
      const int q = e == 0 ? quals[k] : scratch.event_quals[e][k];
      const double error = scratch.error[e][k];
      const int context = e == 0 ? scratch.context[k] : scratch.indel_context[k];
      const int cycle = e == 0 ? scratch.cycle[k] : scratch.indel_cycle[k];
      sink.add(BinTable::kQuality, rg, q, 0, e, error);
      if (context >= 0) sink.add(BinTable::kContext, rg, q, context, e, error);
      if (cycle >= 0) sink.add(BinTable::kCycle, rg, q, cycle, e, error);
    }
  }
}

}  // namespace

bool passes_recalibration_filters(const io::ReadBatch& reads, std::size_t i,
                                  const io::Header& header) {
  const std::uint16_t f = reads.flag[i];
  if (f & (io::flag::kUnmapped | io::flag::kSecondary | io::flag::kDuplicate | io::flag::kQcFail))
    return false;
  if (reads.tid[i] < 0 || reads.pos[i] < 0) return false;
  if (reads.mapq[i] == 0 || reads.mapq[i] == 255) return false;
  if (io::find_aux_field(reads.read_aux(i), "RG") == nullptr)
    return false;  // WellformedRead: HasReadGroup
  const std::size_t length = reads.seq_length(i);
  if (length == 0) return false;  // SeqIsStored
  const auto quals = reads.read_qual(i);
  if (quals[0] == 0xFF) return false;  // no qualities: MatchingBasesAndQuals fails
  std::size_t query_length = 0;
  for (const std::uint32_t packed : reads.read_cigar(i)) {
    if (cigar_op(packed) == CigarOp::kSkip) return false;  // CigarContainsNoNOperator
    if (consumes_query(cigar_op(packed))) query_length += cigar_length(packed);
  }
  if (query_length != length) return false;  // ReadLengthEqualsCigarLength
  const auto& contigs = header.contigs();
  if (static_cast<std::size_t>(reads.tid[i]) >= contigs.size()) return false;
  if (reads.pos[i] >= contigs[static_cast<std::size_t>(reads.tid[i])].length)
    return false;  // AlignmentAgreesWithHeader
  return true;
}

int counted_read_group(const io::ReadBatch& reads, std::size_t i, const io::Header& header,
                       const GenomeContext& genome, const ReadGroupKeys& keys) {
  if (!passes_recalibration_filters(reads, i, header)) return -1;
  const std::int32_t header_rg = reads.read_group[i];
  if (header_rg < 0) {
    const std::uint8_t* rg = io::find_aux_field(reads.read_aux(i), "RG");
    throw ReadError("read " + std::string(reads.read_name(i)) + " has read group '" +
                    std::string(reinterpret_cast<const char*>(rg + 1)) +
                    "', which is not in the header");
  }
  if (genome.contig_bases[static_cast<std::size_t>(reads.tid[i])].empty()) {
    throw Error("no reference bases for contig " +
                header.contigs()[static_cast<std::size_t>(reads.tid[i])].name);
  }
  // The tables' quality axis ends at SAM's largest quality (GATK's arrays too: it fails there).
  std::uint8_t highest = 0;
  for (const std::uint8_t q : reads.read_qual(i)) highest = std::max(highest, q);
  if (highest >= kQualCount) {
    throw ReadError("read " + std::string(reads.read_name(i)) + " has base quality " +
                    std::to_string(highest) + ", above SAM's largest (93)");
  }
  return keys.key_of_header_read_group[static_cast<std::size_t>(header_rg)];
}

// The CPU path keeps its per-thread tables across batches and merges them once, at the end;
// BAQ counts into one table in read order (fractional errors sum as GATK sums them).
struct CovariateCounting::State {
  const io::Header& header;
  CovariateOptions options;
  CountingOptions counting;
  ReadGroupKeys rg_keys;
  std::unique_ptr<KernelCounting> kernels;  // the kernel path, when it applies
  RecalTables total;
  /// Dense counting: the tables of each slot of the counting arena, made on first use (each
  /// slot is one thread's at a time); as many slots as the memory allows, none to count into
  /// `total` on one thread.
  std::vector<std::unique_ptr<RecalTables>> slots;
  std::optional<oneapi::tbb::task_arena> arena;  ///< of slots.size() threads, made once
  oneapi::tbb::enumerable_thread_specific<ReadScratch> scratch;

  State(const io::Header& h, const CovariateOptions& o, const CountingOptions& c)
      : header(h), options(o), counting(c), rg_keys(read_group_keys(h)) {}

  void add_on_cpu(const io::ReadBatch& reads, const GenomeContext& genome);
};

CovariateCounting::CovariateCounting(const io::Header& header, const CovariateOptions& options,
                                     const CountingOptions& counting)
    : state_(std::make_unique<State>(header, options, counting)) {
  State& s = *state_;
  // The kernels count into dense tables of every read group and quality: where those would take
  // more than half of --max-memory (hundreds of read groups), the CPU counts, into tables that
  // hold only the qualities seen.
  const int read_group_count = static_cast<int>(s.rg_keys.identifiers.size());
  const bool kernel_counts_fit =
      counting.memory_bytes == 0 ||
      KernelCounting::count_bytes(read_group_count, options) <= counting.memory_bytes / 2;
  if (counting.backend == kernels::Backend::kGpu && !counting.indel_tables &&
      !counting.enable_baq && kernel_counts_fit) {
    s.kernels = std::make_unique<KernelCounting>(header, options, counting.backend, counting.method,
                                                 counting.times);
    return;
  }
  if (s.rg_keys.identifiers.empty())
    throw Error("the input has no @RG read group in its header; BQSR needs read groups");
  const int events = counting.indel_tables ? kEventCount : 1;
  s.total = RecalTables(read_group_count, options, events);
  // A thread's tables are a copy of all of them (3.2 MB a read group at GATK's shapes, 9.6 MB
  // with the indel tables): with many read groups, fewer threads count, so that the copies stay
  // within half of --max-memory.
  const auto threads = oneapi::tbb::global_control::active_value(
      oneapi::tbb::global_control::max_allowed_parallelism);
  std::uint64_t copies = threads;
  if (counting.memory_bytes > 0) {
    const std::uint64_t room =
        counting.memory_bytes / 2 / RecalTables::memory_bytes(read_group_count, options, events);
    copies = std::min<std::uint64_t>(copies, room > 0 ? room - 1 : 0);  // `total` takes one
  }
  s.slots.resize(copies > 1 ? copies : 0);
  if (!s.slots.empty()) s.arena.emplace(static_cast<int>(s.slots.size()));
}

CovariateCounting::~CovariateCounting() = default;

void CovariateCounting::add(const io::ReadBatch& reads, const GenomeContext& genome) {
  if (state_->kernels) {
    state_->kernels->add(reads, genome);
    return;
  }
  const ScopedPhase phase(state_->counting.times, "cpu counting");
  state_->add_on_cpu(reads, genome);
}

void CovariateCounting::State::add_on_cpu(const io::ReadBatch& reads, const GenomeContext& genome) {
  auto count_range = [&](const oneapi::tbb::blocked_range<std::size_t>& range, auto& sink) {
    ReadScratch& local = scratch.local();
    for (std::size_t i = range.begin(); i != range.end(); ++i) {
      const int rg = counted_read_group(reads, i, header, genome, rg_keys);
      if (rg >= 0) count_read(reads, i, rg, genome, options, counting, sink, local);
    }
  };
  if (counting.enable_baq) {
    // Fractional errors: sum in read order, as GATK does, so the rounded totals agree.
    DenseSink sink{total};
    count_range(oneapi::tbb::blocked_range<std::size_t>(0, reads.size()), sink);
  } else if (counting.method == CountingMethod::kDense && slots.empty()) {
    DenseSink sink{total};  // no room for a thread's copy: one thread counts
    count_range(oneapi::tbb::blocked_range<std::size_t>(0, reads.size()), sink);
  } else if (counting.method == CountingMethod::kDense) {
    // Integer errors: any order gives the same sums.
    arena->execute([&] {
      oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, reads.size(), 2048),
                                [&](const oneapi::tbb::blocked_range<std::size_t>& range) {
                                  std::unique_ptr<RecalTables>& own =
                                      slots[static_cast<std::size_t>(
                                          oneapi::tbb::this_task_arena::current_thread_index())];
                                  if (!own)
                                    own = std::make_unique<RecalTables>(
                                        total.read_group_count(), options, total.event_count());
                                  DenseSink sink{*own};
                                  count_range(range, sink);
                                });
    });
  } else {
    // Sort + segmented reduce: one packed key per count, sorted on the chosen backend; each run
    // of equal keys is one bin (observations = run length, errors = errors in the run).
    constexpr std::size_t kReadsPerChunk = 1u << 20;
    for (std::size_t first = 0; first < reads.size(); first += kReadsPerChunk) {
      const std::size_t last = std::min(reads.size(), first + kReadsPerChunk);
      struct Buffers {
        std::vector<std::uint64_t> keys;
        std::vector<std::uint8_t> errors;
      };
      oneapi::tbb::enumerable_thread_specific<Buffers> buffers;
      oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(first, last, 2048),
                                [&](const oneapi::tbb::blocked_range<std::size_t>& range) {
                                  Buffers& local = buffers.local();
                                  KeySink sink{local.keys, local.errors};
                                  count_range(range, sink);
                                });
      std::vector<std::uint64_t> keys;
      std::vector<std::uint8_t> errors;
      for (const Buffers& b : buffers) {
        keys.insert(keys.end(), b.keys.begin(), b.keys.end());
        errors.insert(errors.end(), b.errors.begin(), b.errors.end());
      }
      if (keys.size() >= std::numeric_limits<std::uint32_t>::max())
        throw Error("bqsr: too many bases in one chunk");
      const std::vector<std::uint32_t> order =
          kernels::stable_sort_permutation(keys, counting.backend);
      for (std::size_t run = 0; run < order.size();) {
        const std::uint64_t key = keys[order[run]];
        std::size_t end = run;
        std::int64_t run_errors = 0;
        while (end < order.size() && keys[order[end]] == key) run_errors += errors[order[end++]];
        add_bin(total, key, static_cast<std::int64_t>(end - run), static_cast<double>(run_errors));
        run = end;
      }
    }
  }
}

RecalTables CovariateCounting::finish() {
  State& s = *state_;
  if (s.kernels) return s.kernels->finish();
  for (const std::unique_ptr<RecalTables>& tables : s.slots) {
    if (tables) s.total.merge(*tables);
  }
  s.slots.clear();
  s.total.finalize();
  return std::move(s.total);
}

RecalTables count_covariates(const io::ReadBatch& reads, const io::Header& header,
                             const GenomeContext& genome, const CovariateOptions& options,
                             const CountingOptions& counting) {
  CovariateCounting counting_run(header, options, counting);
  counting_run.add(reads, genome);
  return counting_run.finish();
}

}  // namespace gpp::stages::bqsr
