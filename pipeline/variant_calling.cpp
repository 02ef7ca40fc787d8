#include "pipeline/variant_calling.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <set>

#include "core/error.hpp"
#include "pipeline/log.hpp"
#include "stages/call/call_reads.hpp"

namespace gpp::pipeline {

namespace {

using stages::call::TraversalSpan;

/// Reads turned into the caller's records at a time (a chunk ends at a change of start).
constexpr std::size_t kCallReadsPerChunk = 1 << 18;

std::string upper_case(std::string bases) {
  for (char& base : bases) base = static_cast<char>(std::toupper(static_cast<unsigned char>(base)));
  return bases;
}

}  // namespace

void check_reference(const io::Header& header, const std::string& input,
                     const io::Reference& reference, const std::vector<bool>& needed) {
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
  if (!unused_missing.empty()) {
    log::warning(std::to_string(unused_missing.size()) + " contig(s) of the header of " + input +
                 " are not in " + reference.path() + " (e.g. '" + unused_missing.front() +
                 "'); no read or interval uses them");
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

std::string single_sample(const io::Header& header, const std::string& input) {
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
  if (samples.size() > 1) {
    std::string names;
    for (const std::string& sample : samples) names += (names.empty() ? "'" : ", '") + sample + "'";
    throw Error(input + ": " + std::to_string(samples.size()) + " samples in the read groups (" +
                names + "); call handles one sample per file");
  }
  return *samples.begin();
}

void call_variants(const io::ReadBatch& reads, std::span<const std::uint32_t> order,
                   const io::Header& header, const std::string& input,
                   const io::Reference& reference, const std::vector<io::Interval>& intervals,
                   const stages::call::HaplotypeCallerOptions& options,
                   stages::call::CallerEngines& engines, stages::call::CallSink& sink) {
  const std::vector<io::Contig>& contigs = header.contigs();
  std::vector<std::vector<std::size_t>> rows(contigs.size());
  for (const std::uint32_t i : order) {
    if (reads.tid[i] >= 0) rows[static_cast<std::size_t>(reads.tid[i])].push_back(i);
  }
  std::vector<std::vector<TraversalSpan>> spans(contigs.size());
  for (const io::Interval& interval : intervals) {
    spans[static_cast<std::size_t>(header.contig_index(interval.contig))].push_back(
        {interval.start, interval.end});
  }
  std::vector<bool> needed(contigs.size());
  for (std::size_t c = 0; c < contigs.size(); ++c) {
    needed[c] = intervals.empty() ? !rows[c].empty() : !spans[c].empty();
  }
  check_reference(header, input, reference, needed);
  for (std::size_t c = 0; c < contigs.size(); ++c) {
    // Without -L a gVCF covers every contig of the reference, as GATK's traversal does; a VCF
    // needs only the contigs with reads.
    if (intervals.empty() && options.emits_reference_confidence() &&
        reference.contig_length(contigs[c].name) >= 0) {
      needed[c] = true;
    }
    if (intervals.empty() && needed[c]) spans[c].push_back({0, contigs[c].length});
  }

  std::vector<std::int64_t> lengths;
  for (const io::Contig& contig : contigs) lengths.push_back(contig.length);
  const stages::call::ReadFilterContext filters{lengths, header.read_groups().size(),
                                                stages::call::kDefaultMinMappingQuality};
  for (std::size_t c = 0; c < contigs.size(); ++c) {
    if (!needed[c]) continue;
    // Reads near the intervals only (GATK's traversal reads those overlapping the padded shards).
    std::vector<std::size_t> used;
    for (const std::size_t i : rows[c]) {
      const std::int64_t start = reads.pos[i] - options.regions.padding;
      const std::int64_t end = reads.end[i] + options.regions.padding;
      for (const TraversalSpan& span : spans[c]) {
        if (start < span.end && end > span.start) {
          used.push_back(i);
          break;
        }
      }
    }
    const auto seconds_since = [](std::chrono::steady_clock::time_point from) {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - from).count();
    };
    auto started = std::chrono::steady_clock::now();
    const std::string bases = upper_case(reference.fetch(contigs[c].name, 0, contigs[c].length));
    engines.times.add("reads and reference", seconds_since(started));
    // The caller's reads are made chunk by chunk as it asks for them, each chunk ending at a
    // change of alignment start (the downsampler's stacks stay whole).
    std::size_t next = 0;
    const stages::call::ReadChunks next_chunk = [&](std::vector<stages::call::CallRead>& chunk) {
      const auto chunk_started = std::chrono::steady_clock::now();
      std::size_t end = std::min(used.size(), next + kCallReadsPerChunk);
      while (end < used.size() && reads.pos[used[end]] == reads.pos[used[end - 1]]) ++end;
      chunk = stages::call::call_reads(reads, std::span(used).subspan(next, end - next));
      stages::call::select_caller_reads(chunk, filters, options);
      next = end;
      engines.times.add("reads and reference", seconds_since(chunk_started));
      return next < used.size();
    };
    stages::call::call_contig({static_cast<std::int32_t>(c), bases}, next_chunk, spans[c], options,
                              engines, sink);
  }
}

void log_calling_summary(const stages::call::CallerEngines& engines, std::size_t calls,
                         double seconds) {
  log::info("call: " + std::to_string(calls) + " variants from " +
            std::to_string(engines.active_regions) + " active regions (" +
            std::to_string(engines.regions) + " regions) in " + std::to_string(seconds) + " s (" +
            kernels::backend_name(engines.backend) + ")");
  const kernels::PairHmmStats& hmm = engines.likelihoods;
  const double gpu_seconds = engines.backend == kernels::Backend::kGpu
                                 ? hmm.compute_seconds + engines.smith_waterman.gpu_kernel_seconds
                                 : 0.0;
  log::info(
      "call phases: " + engines.times.summary() + "; PairHMM " + std::to_string(hmm.pairs) +
      " pairs, " + std::to_string(hmm.cells) + " cells; Smith-Waterman " +
      std::to_string(engines.smith_waterman.cells) + " cells" +
      (engines.backend == kernels::Backend::kGpu
           ? "; GPU busy " + std::to_string(seconds > 0 ? 100.0 * gpu_seconds / seconds : 0.0) + "%"
           : std::string()));
}

}  // namespace gpp::pipeline
