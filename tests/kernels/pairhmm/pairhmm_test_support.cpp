#include "tests/kernels/pairhmm/pairhmm_test_support.hpp"

#include <oneapi/tbb/parallel_for.h>

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

#include "kernels/pairhmm/detail/backends.hpp"
#include "tests/test_support.hpp"

namespace gpp::test {

namespace {

std::vector<std::uint8_t> phred(const std::string& text, int floor) {
  std::vector<std::uint8_t> q(text.size());
  for (std::size_t i = 0; i < text.size(); ++i)
    q[i] = static_cast<std::uint8_t>(std::max(text[i] - 33, floor));
  return q;
}

std::string random_bases(std::mt19937_64& rng, int length, double n_rate) {
  static const char kBases[] = "ACGT";
  std::uniform_int_distribution<int> base(0, 3);
  std::uniform_real_distribution<double> unit(0, 1);
  std::string s(length, 'A');
  for (auto& c : s) c = unit(rng) < n_rate ? 'N' : kBases[base(rng)];
  return s;
}

// A read taken from `hap` at a random offset, with substitutions, small indels and Ns.
std::string related_read(std::mt19937_64& rng, const std::string& hap, int length,
                         const RandomBatchOptions& o) {
  std::uniform_real_distribution<double> unit(0, 1);
  std::uniform_int_distribution<int> base(0, 3);
  static const char kBases[] = "ACGT";
  const int start =
      hap.size() > static_cast<std::size_t>(length)
          ? std::uniform_int_distribution<int>(0, static_cast<int>(hap.size()) - length)(rng)
          : 0;
  std::string read;
  for (std::size_t j = start; read.size() < static_cast<std::size_t>(length);) {
    const double x = unit(rng);
    const char from_hap = j < hap.size() ? hap[j] : kBases[base(rng)];
    if (x < o.error_rate * 0.8) {
      read.push_back(kBases[base(rng)]);  // substitution
      ++j;
    } else if (x < o.error_rate * 0.9) {
      read.push_back(kBases[base(rng)]);  // insertion
    } else if (x < o.error_rate) {
      ++j;  // deletion
    } else {
      read.push_back(unit(rng) < o.n_rate ? 'N' : from_hap);
      ++j;
    }
  }
  return read;
}

}  // namespace

std::vector<PairHmmGoldenCase> load_pairhmm_golden() {
  std::ifstream in(data_path("gatk_golden/pairhmm/pairhmm-testdata.txt"));
  std::vector<PairHmmGoldenCase> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string hap, read, qual, ins, del, gcp;
    double expected = 0;
    fields >> hap >> read >> qual >> ins >> del >> gcp >> expected;
    cases.push_back(
        {hap, read, phred(qual, 6), phred(ins, 0), phred(del, 0), phred(gcp, 0), expected});
  }
  return cases;
}

kernels::PairHmmBatch golden_batch(const std::vector<PairHmmGoldenCase>& cases) {
  kernels::PairHmmBatch batch;
  for (const auto& c : cases) {
    batch.add_read(c.read, c.base_quals, c.ins_quals, c.del_quals, c.gcp_quals);
    batch.add_haplotype(c.haplotype);
    batch.end_group();
  }
  return batch;
}

kernels::PairHmmBatch random_pairhmm_batch(const RandomBatchOptions& o) {
  std::mt19937_64 rng(o.seed);
  auto between = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::uniform_real_distribution<double> unit(0, 1);
  kernels::PairHmmBatch batch;
  for (int g = 0; g < o.groups; ++g) {
    const int haplotypes = between(o.min_haplotypes, o.max_haplotypes);
    std::vector<std::string> haps;
    for (int h = 0; h < haplotypes; ++h) {
      haps.push_back(
          random_bases(rng, between(o.min_haplotype_length, o.max_haplotype_length), o.n_rate));
    }
    const int reads = between(o.min_reads, o.max_reads);
    for (int r = 0; r < reads; ++r) {
      const int length = between(o.min_read_length, o.max_read_length);
      const std::string bases = unit(rng) < o.related_fraction
                                    ? related_read(rng, haps[0], length, o)
                                    : random_bases(rng, length, o.n_rate);
      std::vector<std::uint8_t> q(length), ins(length), del(length), gcp(length);
      for (int i = 0; i < length; ++i) {
        q[i] = static_cast<std::uint8_t>(between(o.min_qual, o.max_qual));
        ins[i] = static_cast<std::uint8_t>(between(o.min_qual, o.max_qual));
        del[i] = static_cast<std::uint8_t>(between(o.min_qual, o.max_qual));
        gcp[i] =
            o.constant_gap_quals ? 10 : static_cast<std::uint8_t>(between(o.min_qual, o.max_qual));
      }
      batch.add_read(bases, q, ins, del, gcp);
    }
    for (const auto& h : haps) batch.add_haplotype(h);
    batch.end_group();
  }
  return batch;
}

std::vector<double> pairhmm_reference(const kernels::PairHmmBatchView& batch) {
  const auto offsets = kernels::detail::pairhmm_result_offsets(batch.groups);
  std::vector<double> out(offsets.back());
  oneapi::tbb::parallel_for(std::size_t{0}, batch.groups.size(), [&](std::size_t g) {
    const auto& group = batch.groups[g];
    oneapi::tbb::parallel_for(
        std::uint32_t{0}, group.read_count * group.haplotype_count, [&](std::uint32_t k) {
          const std::uint32_t r = group.first_read + k / group.haplotype_count;
          const std::uint32_t h = group.first_haplotype + k % group.haplotype_count;
          const auto& reads = batch.reads;
          const std::uint32_t b = reads.offsets[r], n = reads.offsets[r + 1] - b;
          const std::uint32_t hb = batch.haplotypes.offsets[h],
                              hn = batch.haplotypes.offsets[h + 1] - hb;
          out[offsets[g] + k] = kernels::pairhmm_reference_log10(
              std::string_view(reads.bases.data() + b, n), reads.base_quals.subspan(b, n),
              reads.insertion_quals.subspan(b, n), reads.deletion_quals.subspan(b, n),
              reads.gap_continuation_quals.subspan(b, n),
              std::string_view(batch.haplotypes.bases.data() + hb, hn));
        });
  });
  return out;
}

::testing::AssertionResult pairhmm_within(const kernels::PairHmmBatchView& batch,
                                          const std::vector<double>& actual,
                                          const std::vector<double>& expected, double tolerance) {
  if (actual.size() != expected.size()) {
    return ::testing::AssertionFailure()
           << actual.size() << " results, expected " << expected.size();
  }
  const auto offsets = kernels::detail::pairhmm_result_offsets(batch.groups);
  std::size_t failures = 0, worst = 0;
  double worst_error = -1;
  for (std::size_t k = 0; k < actual.size(); ++k) {
    const double error = std::isfinite(actual[k]) ? std::abs(actual[k] - expected[k]) : HUGE_VAL;
    if (!(error <= tolerance)) ++failures;
    if (!(error <= worst_error)) {
      worst_error = error;
      worst = k;
    }
  }
  if (failures == 0) return ::testing::AssertionSuccess() << "max error " << worst_error;
  std::size_t g = 0;
  while (offsets[g + 1] <= worst) ++g;
  const auto& group = batch.groups[g];
  const std::uint32_t r =
      group.first_read + static_cast<std::uint32_t>((worst - offsets[g]) / group.haplotype_count);
  const std::uint32_t h = group.first_haplotype +
                          static_cast<std::uint32_t>((worst - offsets[g]) % group.haplotype_count);
  return ::testing::AssertionFailure()
         << failures << " of " << actual.size() << " pairs off by more than " << tolerance
         << "; worst: group " << g << " read " << r << " (length "
         << batch.reads.offsets[r + 1] - batch.reads.offsets[r] << ") haplotype " << h
         << " (length " << batch.haplotypes.offsets[h + 1] - batch.haplotypes.offsets[h]
         << "): " << actual[worst] << " vs " << expected[worst];
}

kernels::PairHmmBatch edge_case_batch() {
  kernels::PairHmmBatch batch;
  const std::vector<std::uint8_t> one_q40{40}, one_q2{2};
  batch.add_read("A", one_q40, one_q40, one_q40, one_q40);
  batch.add_read("N", one_q2, one_q2, one_q2, one_q2);
  batch.add_haplotype("A");
  batch.add_haplotype("T");
  batch.add_haplotype("NNNN");
  batch.end_group();
  const std::vector<std::uint8_t> zeros(8, 0), ones(8, 1), threes(8, 3), tens(8, 10);
  batch.add_read("ACGTACGT", zeros, zeros, ones, tens);
  batch.add_read("acgtnnGT", tens, threes, threes, ones);
  batch.add_haplotype("ACGTACGTAC");
  batch.add_haplotype("G");
  batch.end_group();
  return batch;
}

}  // namespace gpp::test
