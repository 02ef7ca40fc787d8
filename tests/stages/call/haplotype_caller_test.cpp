// ContigCaller as reads arrive: whatever the chunks the reads come in (one chunk, or one
// alignment-start stack at a time), the calls and the reference sites are the same, in VCF and in
// gVCF mode, and the planted variants are called.
#include "stages/call/haplotype_caller.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "stages/call/given_alleles.hpp"
#include "tests/stages/call/active_region_test_reads.hpp"

namespace gpp::stages::call {
namespace {

constexpr std::int64_t kContigLength = 40000;

/// What a sink received, as text, in order.
class RecordingSink final : public CallSink {
 public:
  void add_call(VariantCall&& call) override {
    std::string line = "call " + std::to_string(call.position);
    for (const std::string& allele : call.alleles) line += " " + allele;
    for (int allele : call.genotype.alleles) line += " gt" + std::to_string(allele);
    for (int pl : call.genotype.pls) line += " " + std::to_string(pl);
    lines.push_back(line);
    ++calls;
  }
  void add_reference_site(const ReferenceSite& site) override {
    std::string line = "site " + std::to_string(site.position) + " " + std::to_string(site.depth) +
                       " " + std::to_string(site.gq);
    for (int pl : site.pls) line += " " + std::to_string(pl);
    lines.push_back(line);
  }

  std::vector<std::string> lines;
  int calls = 0;
};

struct Simulation {
  std::string reference;
  std::vector<CallRead> reads;  ///< coordinate order
  std::vector<std::int64_t> snps;
};

/// A random reference, heterozygous SNPs every 2 kb, and 100 bp reads starting every 4 bp on
/// alternating strands (two at each start), half of those over a SNP carrying its alt base.
Simulation simulate() {
  Simulation sim;
  std::mt19937 random(20261126);
  const char bases[] = {'A', 'C', 'G', 'T'};
  for (std::int64_t i = 0; i < kContigLength; ++i) sim.reference += bases[random() % 4];
  std::string alternate = sim.reference;
  for (std::int64_t p = 1000; p < kContigLength - 1000; p += 2000) {
    sim.snps.push_back(p);
    alternate[static_cast<std::size_t>(p)] = sim.reference[p] == 'A' ? 'C' : 'A';
  }
  int serial = 0;
  for (std::int64_t start = 0; start + 100 <= kContigLength; start += 4) {
    for (int copy = 0; copy < 2; ++copy) {
      const std::string& haplotype = (serial % 2 == 0) ? sim.reference : alternate;
      CallRead read = test::make_read("r" + std::to_string(serial), start, "100M",
                                      haplotype.substr(static_cast<std::size_t>(start), 100));
      read.contig = 0;
      if (copy == 1) read.flag = 0x10;
      sim.reads.push_back(std::move(read));
      ++serial;
    }
  }
  return sim;
}

/// The simulation's reads to `caller` in chunks of about `reads_per_chunk` (whole alignment-start
/// stacks), then finish().
void add_in_chunks(ContigCaller& caller, const Simulation& sim, std::size_t reads_per_chunk) {
  for (std::size_t next = 0; next < sim.reads.size();) {
    std::size_t end = std::min(sim.reads.size(), next + reads_per_chunk);
    while (end < sim.reads.size() && sim.reads[end].start == sim.reads[end - 1].start) ++end;
    caller.add(std::vector<CallRead>(sim.reads.begin() + static_cast<std::ptrdiff_t>(next),
                                     sim.reads.begin() + static_cast<std::ptrdiff_t>(end)));
    next = end;
  }
  caller.finish();
}

std::vector<std::string> call_in_chunks(const Simulation& sim, std::size_t reads_per_chunk,
                                        ReferenceConfidenceMode mode,
                                        std::size_t regions_per_batch = kDefaultRegionsPerBatch) {
  HaplotypeCallerOptions options;
  options.reference_confidence = mode;
  options.regions_per_batch = regions_per_batch;
  options.derive();
  CallerEngines engines(kernels::Backend::kCpu);
  RecordingSink sink;
  const TraversalSpan whole{0, kContigLength};
  ContigCaller caller({0, sim.reference, "chr"}, {&whole, 1}, options, engines, sink);
  add_in_chunks(caller, sim, reads_per_chunk);
  return sink.lines;
}

TEST(ContigCaller, ChunksOfReadsGiveTheSameCalls) {
  const Simulation sim = simulate();
  const std::vector<std::string> whole =
      call_in_chunks(sim, sim.reads.size(), ReferenceConfidenceMode::kNone);
  ASSERT_EQ(whole.size(), sim.snps.size());
  for (std::size_t i = 0; i < sim.snps.size(); ++i) {
    EXPECT_EQ(whole[i].rfind("call " + std::to_string(sim.snps[i]) + " ", 0), 0u) << whole[i];
    EXPECT_NE(whole[i].find(" gt0 gt1 "), std::string::npos) << whole[i];
  }
  EXPECT_EQ(call_in_chunks(sim, 1, ReferenceConfidenceMode::kNone), whole);
  EXPECT_EQ(call_in_chunks(sim, 1000, ReferenceConfidenceMode::kNone), whole);
  // Small batches: regions are called, and reads dropped, while later reads still arrive.
  EXPECT_EQ(call_in_chunks(sim, 1, ReferenceConfidenceMode::kNone, 3), whole);
  EXPECT_EQ(call_in_chunks(sim, 50, ReferenceConfidenceMode::kNone, 1), whole);
}

TEST(ContigCaller, ChunksOfReadsGiveTheSameReferenceModel) {
  const Simulation sim = simulate();
  const std::vector<std::string> whole =
      call_in_chunks(sim, sim.reads.size(), ReferenceConfidenceMode::kGvcf);
  // One line per position: a site, or a call where one starts (SNPs here).
  ASSERT_EQ(whole.size(), static_cast<std::size_t>(kContigLength));
  int calls = 0;
  for (const std::string& line : whole) calls += line.rfind("call ", 0) == 0 ? 1 : 0;
  EXPECT_GE(calls, static_cast<int>(sim.snps.size()));
  EXPECT_EQ(call_in_chunks(sim, 1, ReferenceConfidenceMode::kGvcf), whole);
  EXPECT_EQ(call_in_chunks(sim, 777, ReferenceConfidenceMode::kGvcf), whole);
  EXPECT_EQ(call_in_chunks(sim, 1, ReferenceConfidenceMode::kGvcf, 2), whole);
  EXPECT_EQ(call_in_chunks(sim, 300, ReferenceConfidenceMode::kGvcf, 5), whole);
}

/// The calls over `spans` of reads in chunks of 1000, force-calling `given`.
std::vector<std::string> force_call(const Simulation& sim, std::span<const TraversalSpan> spans,
                                    GivenAlleles& given) {
  HaplotypeCallerOptions options;
  options.derive();
  CallerEngines engines(kernels::Backend::kCpu);
  RecordingSink sink;
  ContigCaller caller({0, sim.reference, "chr"}, spans, options, engines, sink, &given);
  add_in_chunks(caller, sim, 1000);
  return sink.lines;
}

// --alleles read in pieces as the traversal reaches them gives the calls of the records held at
// once, and a traversal ending early reads no piece far beyond its end.
TEST(ContigCaller, GivenRecordsAreReadAsTheTraversalGoes) {
  const Simulation sim = simulate();
  std::vector<io::KnownVariant> records;  // a SNP every 50 bases, the planted ones' alleles
  for (std::int64_t p = 0; p < kContigLength; p += 50) {
    const char ref = sim.reference[static_cast<std::size_t>(p)];
    records.push_back({p, ".", {std::string(1, ref), std::string(1, ref == 'A' ? 'C' : 'A')}});
  }
  const TraversalSpan interval{2000, 6000};
  GivenAlleles whole(records, false);
  const std::vector<std::string> expected = force_call(sim, {&interval, 1}, whole);
  int reads = 0;
  std::int64_t read_to = 0;
  GivenAlleles pieces(
      [&](std::int64_t from, std::int64_t to) {
        ++reads;
        read_to = std::max(read_to, to);
        std::vector<io::KnownVariant> piece;
        for (const io::KnownVariant& r : records) {
          if (r.position >= from && r.position < to) piece.push_back(r);
        }
        return piece;
      },
      kContigLength, false, 1000);
  EXPECT_EQ(force_call(sim, {&interval, 1}, pieces), expected);
  // Every given locus of the interval is written (the planted SNPs among them).
  EXPECT_GE(expected.size(), 70u);
  for (const std::string& line : expected) {
    const std::int64_t position = std::stoll(line.substr(5));
    EXPECT_EQ(position % 50, 0) << line;
    EXPECT_GE(position, interval.start) << line;
    EXPECT_LT(position, interval.end) << line;
  }
  // The pieces up to the interval's end and the traversal margin after it, not the contig's.
  EXPECT_LE(read_to, 8000);
  EXPECT_LE(reads, 8);
}

}  // namespace
}  // namespace gpp::stages::call
