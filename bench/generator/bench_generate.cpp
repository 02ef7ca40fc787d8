// bench_generate: large, realistic paired-end BAMs for benchmarks, fast enough to run on the GPU
// host (no simulator or aligner there). A diploid sample is drawn first (SNPs and 1-10 bp indels,
// phased, written as a truth VCF), then read pairs are cut from its two haplotypes and aligned to
// the reference by construction (bench/generator/read_simulator.hpp lists what they carry).
//
//   bench_generate REF.fa OUT.bam PAIRS [--seed S] [--duplicates 0.08] [--sorted] [--threads N]
//                  [--truth-vcf truth.vcf.gz] [--known-sites known.vcf.gz] [--snp-rate 0.001]
//                  [--indel-rate 0.000125] [--known-fraction 0.7] [--quality-bias 4]
//
//                  [--max-memory SIZE]
//
// OUT.bam is in generation order (like an aligner's output) unless --sorted. --sorted holds every
// pair in memory (about 1 kB each) unless --max-memory bounds it: then the pairs are written in
// generation order to a temporary BAM and sorted in spilled runs (as `sort --max-memory`). The
// first two contigs with 1 kb free of N are used (enough for mates on another contig).
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_group.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "bench/generator/read_simulator.hpp"
#include "bench/generator/truth_set.hpp"
#include "bench/generator/vcf_text.hpp"
#include "core/error.hpp"
#include "io/bam/alignment_writer.hpp"
#include "io/genome/reference.hpp"
#include "io/output_file.hpp"
#include "io/text/indexed_vcf_output.hpp"
#include "pipeline/gpu_session.hpp"
#include "pipeline/memory_budget.hpp"
#include "pipeline/spill_sort.hpp"
#include "stages/sort/coordinate_sort.hpp"

namespace {

using gpp::bench::SimulatedContig;

constexpr const char* kUsage =
    "usage: bench_generate REF.fa OUT.bam PAIRS [--seed S] [--duplicates F] [--sorted] [--threads "
    "N] "
    "[--truth-vcf OUT.vcf.gz] [--known-sites OUT.vcf.gz] [--snp-rate R] [--indel-rate R] "
    "[--known-fraction F] "
    "[--quality-bias Q] [--max-memory SIZE]";
constexpr const char* kSample = "SIM";

struct Options {
  std::string reference;
  std::string output;
  std::string truth_vcf;
  std::string known_sites;
  gpp::bench::SimulationSettings simulation;
  gpp::bench::VariantRates rates;
  bool sorted = false;
  int threads = 0;
  std::uint64_t max_memory = 0;  ///< --sorted: bytes of records held at once (0: everything)
};

struct UsageError {
  std::string message;
};

double parse_number(const std::string& option, const char* text, double low, double high) {
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text, &end);
  if (end == text || *end != '\0' || errno != 0 || !(value >= low && value <= high)) {
    throw UsageError{option + ": expected a number in [" + std::to_string(low) + ", " +
                     std::to_string(high) + "], got '" + text + "'"};
  }
  return value;
}

Options parse_options(int argc, char** argv) {
  Options o;
  std::vector<std::string> positional;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--sorted") {
      o.sorted = true;
      continue;
    }
    if (arg.rfind("--", 0) != 0) {
      positional.push_back(arg);
      continue;
    }
    if (a + 1 >= argc) throw UsageError{arg + ": missing value"};
    const char* value = argv[++a];
    if (arg == "--seed")
      o.simulation.seed = static_cast<unsigned>(parse_number(arg, value, 0, 4294967295.0));
    else if (arg == "--duplicates")
      o.simulation.duplicates = parse_number(arg, value, 0, 0.9);
    else if (arg == "--threads")
      o.threads = static_cast<int>(parse_number(arg, value, 0, 4096));
    else if (arg == "--quality-bias")
      o.simulation.quality_bias = static_cast<int>(parse_number(arg, value, -10, 20));
    else if (arg == "--snp-rate")
      o.rates.snp = parse_number(arg, value, 0, 0.05);
    else if (arg == "--indel-rate")
      o.rates.indel = parse_number(arg, value, 0, 0.01);
    else if (arg == "--known-fraction")
      o.rates.known = parse_number(arg, value, 0, 1);
    else if (arg == "--truth-vcf")
      o.truth_vcf = value;
    else if (arg == "--known-sites")
      o.known_sites = value;
    else if (arg == "--max-memory") {
      try {
        o.max_memory = gpp::pipeline::parse_memory_size(value);
      } catch (const gpp::Error& e) {
        throw UsageError{arg + ": " + e.what()};
      }
    } else
      throw UsageError{"unknown option " + arg};
  }
  if (positional.size() != 3) throw UsageError{"expected REF.fa OUT.bam PAIRS"};
  o.reference = positional[0];
  o.output = positional[1];
  o.simulation.pairs =
      static_cast<std::int64_t>(parse_number("PAIRS", positional[2].c_str(), 1, 1e10));
  return o;
}

// The first two contigs with a 1 kb window free of N, upper case, with their truth variants and
// both haplotypes.
std::vector<SimulatedContig> simulate_sample(const Options& o) {
  gpp::io::Reference reference(o.reference);
  std::vector<SimulatedContig> contigs;
  for (const auto& c : reference.contigs()) {
    SimulatedContig contig;
    contig.name = c.name;
    contig.bases = reference.fetch(c.name, 0, c.length);
    for (char& base : contig.bases)
      base = static_cast<char>(std::toupper(static_cast<unsigned char>(base)));
    for (std::int64_t w = 0; w + 1000 < c.length; w += 1000) {
      const auto window = std::string_view(contig.bases).substr(w, 1000);
      if (window.find('N') == std::string_view::npos) contig.valid_starts.push_back(w);
    }
    if (!contig.valid_starts.empty()) contigs.push_back(std::move(contig));
    if (contigs.size() == 2) break;
  }
  if (contigs.empty()) throw gpp::Error(o.reference + ": no contig with 1 kb free of N");
  oneapi::tbb::parallel_for(std::size_t{0}, contigs.size(), [&](std::size_t t) {
    SimulatedContig& c = contigs[t];
    std::seed_seq seed{o.simulation.seed, static_cast<unsigned>(t), 0x7275u};
    std::mt19937_64 rng(seed);
    c.truth = gpp::bench::draw_truth(c.bases, o.rates, rng);
    c.haplotypes.emplace_back(c.bases, c.truth, 0);
    c.haplotypes.emplace_back(c.bases, c.truth, 1);
  });
  return contigs;
}

void write_variants(const Options& o, const std::vector<SimulatedContig>& contigs) {
  std::vector<gpp::bench::ContigVariants> truth;
  std::vector<std::vector<gpp::bench::Variant>> known(contigs.size());
  std::vector<gpp::bench::ContigVariants> known_view;
  for (std::size_t t = 0; t < contigs.size(); ++t) {
    const auto length = static_cast<std::int64_t>(contigs[t].bases.size());
    truth.push_back({contigs[t].name, length, &contigs[t].truth});
    std::seed_seq seed{o.simulation.seed, static_cast<unsigned>(t), 0x6b6eu};
    std::mt19937_64 rng(seed);
    known[t] = gpp::bench::draw_known_sites(contigs[t].bases, contigs[t].truth, o.rates, rng);
    known_view.push_back({contigs[t].name, length, &known[t]});
  }
  if (!o.truth_vcf.empty()) {
    gpp::io::write_indexed_vcf(o.truth_vcf,
                               gpp::bench::truth_vcf_text(truth, kSample, o.reference));
  }
  if (!o.known_sites.empty()) {
    gpp::io::write_indexed_vcf(o.known_sites,
                               gpp::bench::known_sites_vcf_text(known_view, o.reference));
  }
}

std::int64_t chunk_count(const Options& o) {
  return (o.simulation.pairs + gpp::bench::kPairsPerChunk - 1) / gpp::bench::kPairsPerChunk;
}

// Every pair in memory, sorted, then written with its index (memory: about 1 kB per pair).
std::int64_t write_sorted(const Options& o, const std::vector<SimulatedContig>& contigs,
                          const gpp::io::Header& header) {
  std::vector<gpp::io::ReadBatch> parts(chunk_count(o));
  oneapi::tbb::parallel_for(std::int64_t{0}, chunk_count(o), [&](std::int64_t c) {
    gpp::bench::simulate_chunk(contigs, o.simulation, c, parts[c]);
  });
  gpp::io::ReadBatch all;
  for (gpp::io::ReadBatch& part : parts) {
    all.append(part);
    part = gpp::io::ReadBatch();
  }
  const auto order = gpp::stages::sort::coordinate_order(all, gpp::kernels::Backend::kCpu);
  gpp::io::write_alignments(o.output, header, all, order,
                            {.compression_level = 1, .write_index = true});
  return static_cast<std::int64_t>(all.size());
}

std::int64_t write_streaming(const Options& o, const std::vector<SimulatedContig>& contigs,
                             const gpp::io::Header& header);

// Within a memory bound: generation order into a temporary BAM beside the output, then the
// spilling sort of `gpu-pipeline sort --max-memory` (same order as sorting everything at once).
std::int64_t write_sorted_spilling(Options o, const std::vector<SimulatedContig>& contigs,
                                   const gpp::io::Header& header) {
  const std::string output = o.output;
  gpp::io::OutputFile unsorted(output + ".unsorted.bam");  // removed when this returns
  o.output = unsorted.temp_path();
  const std::int64_t records = write_streaming(o, contigs, header);
  gpp::pipeline::CommonOptions common;
  common.threads = o.threads;
  common.compression_level = 1;
  common.verbosity = "WARNING";
  gpp::pipeline::SpillSortOptions sort;
  sort.input = unsorted.temp_path();
  sort.output = output;
  common.max_memory = std::to_string(o.max_memory);
  gpp::pipeline::GpuSession gpu(common);
  common.gpu = &gpu;
  gpp::pipeline::spill_sort(sort, common);
  return records;
}

// Generation order, in groups of chunks: while one group is compressed and written, the next is
// generated, so memory stays bounded (two groups) whatever the number of pairs.
std::int64_t write_streaming(const Options& o, const std::vector<SimulatedContig>& contigs,
                             const gpp::io::Header& header) {
  const std::int64_t chunks = chunk_count(o);
  const std::int64_t group = std::max<std::int64_t>(
      4, 2 * static_cast<std::int64_t>(oneapi::tbb::global_control::active_value(
                 oneapi::tbb::global_control::max_allowed_parallelism)));
  const auto simulate_group = [&](std::int64_t g, std::vector<gpp::io::ReadBatch>& parts) {
    const std::int64_t first = g * group;
    parts.assign(static_cast<std::size_t>(std::min(group, chunks - first)), gpp::io::ReadBatch());
    oneapi::tbb::parallel_for(
        std::int64_t{0}, static_cast<std::int64_t>(parts.size()), [&](std::int64_t c) {
          gpp::bench::simulate_chunk(contigs, o.simulation, first + c, parts[c]);
        });
  };
  gpp::io::AlignmentWriter writer(o.output, header, {.compression_level = 1});
  std::vector<gpp::io::ReadBatch> current;
  std::vector<gpp::io::ReadBatch> next;
  simulate_group(0, current);
  const std::int64_t groups = (chunks + group - 1) / group;
  for (std::int64_t g = 0; g < groups; ++g) {
    oneapi::tbb::task_group ahead;
    if (g + 1 < groups) ahead.run([&] { simulate_group(g + 1, next); });
    for (gpp::io::ReadBatch& part : current) {
      writer.write(part);
      part = gpp::io::ReadBatch();
    }
    ahead.wait();
    std::swap(current, next);
  }
  writer.finish();
  return static_cast<std::int64_t>(writer.records_written());
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  try {
    o = parse_options(argc, argv);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "bench_generate: error: %s (%s)\n", e.message.c_str(), kUsage);
    return 2;
  }
  std::unique_ptr<oneapi::tbb::global_control> limit;
  if (o.threads > 0) {
    limit = std::make_unique<oneapi::tbb::global_control>(
        oneapi::tbb::global_control::max_allowed_parallelism, o.threads);
  }
  try {
    const auto start = std::chrono::steady_clock::now();
    const std::vector<SimulatedContig> contigs = simulate_sample(o);
    std::string text =
        "@HD\tVN:1.6\tSO:" + std::string(o.sorted ? "coordinate" : "unsorted") + "\n";
    for (const SimulatedContig& c : contigs)
      text += "@SQ\tSN:" + c.name + "\tLN:" + std::to_string(c.bases.size()) + "\n";
    text += gpp::bench::read_group_header_lines(kSample);
    text += "@PG\tID:bench_generate\tPN:bench_generate\n";
    const gpp::io::Header header = gpp::io::Header::from_text(text);
    const auto sampled = std::chrono::steady_clock::now();
    const std::int64_t records = !o.sorted          ? write_streaming(o, contigs, header)
                                 : o.max_memory > 0 ? write_sorted_spilling(o, contigs, header)
                                                    : write_sorted(o, contigs, header);
    write_variants(o, contigs);
    const auto done = std::chrono::steady_clock::now();
    const double total = std::chrono::duration<double>(done - start).count();
    std::size_t snps = 0;
    std::size_t indels = 0;
    for (const SimulatedContig& c : contigs) {
      for (const auto& v : c.truth) (v.is_snp() ? snps : indels) += 1;
    }
    std::fprintf(
        stderr,
        "bench_generate: %lld pairs, %lld records, %zu truth SNPs, %zu truth indels in %.2f s "
        "(generate %.2f s): %.2f M pairs/s\n",
        static_cast<long long>(o.simulation.pairs), static_cast<long long>(records), snps, indels,
        total, std::chrono::duration<double>(sampled - start).count(),
        o.simulation.pairs / total / 1e6);
  } catch (const gpp::Error& e) {
    std::fprintf(stderr, "bench_generate: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
