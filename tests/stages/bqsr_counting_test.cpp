// The two counting methods of count_covariates (dense per-thread histograms; packed keys sorted
// with kernels::stable_sort_permutation and reduced by runs) give byte-identical reports, on the
// CPU and, where a GPU is present, with the GPU sort.
#include <gtest/gtest.h>

#include <algorithm>

#include "io/alignment_reader.hpp"
#include "io/known_sites.hpp"
#include "io/reference.hpp"
#include "stages/bqsr/base_recalibrator.hpp"
#include "stages/bqsr/recal_report.hpp"
#include "tests/test_support.hpp"

namespace gpp::stages::bqsr {
namespace {

struct Input {
  io::Header header;
  io::ReadBatch reads;
  GenomeContext genome;
};

Input load(const std::string& bam, const std::string& fasta, const std::vector<std::string>& vcfs) {
  Input in;
  in.reads = io::read_alignments(test::data_path(bam), {}, in.header);
  io::Reference reference(test::data_path(fasta));
  const std::size_t n = in.header.contigs().size();
  in.genome.contig_bases.resize(n);
  in.genome.known_sites.resize(n);
  in.genome.max_site_span.assign(n, 0);
  for (std::size_t t = 0; t < n; ++t) {
    const io::Contig& contig = in.header.contigs()[t];
    if (!reference.has_contig(contig.name)) continue;
    in.genome.contig_bases[t] = reference.fetch(contig.name, 0, contig.length);
    for (const std::string& vcf : vcfs) {
      io::KnownSites sites(test::data_path(vcf));
      const auto spans = sites.contig_sites(contig.name);
      in.genome.known_sites[t].insert(in.genome.known_sites[t].end(), spans.begin(), spans.end());
    }
    auto& spans = in.genome.known_sites[t];
    std::stable_sort(
        spans.begin(), spans.end(),
        [](const io::VariantSpan& a, const io::VariantSpan& b) { return a.start < b.start; });
    for (const auto& s : spans)
      in.genome.max_site_span[t] = std::max(in.genome.max_site_span[t], s.end - s.start);
  }
  return in;
}

std::string report(const Input& in, const CountingOptions& counting) {
  const RecalTables tables =
      count_covariates(in.reads, in.header, in.genome, CovariateOptions{}, counting);
  return format_recalibration_report(tables, read_group_keys(in.header).identifiers);
}

std::vector<Input> inputs() {
  std::vector<Input> all;
  all.push_back(load("nfcore_chr22_40kb/test2.paired_end.sorted.bam",
                     "nfcore_chr22_40kb/genome.fasta",
                     {"nfcore_chr22_40kb/dbsnp_146.hg38.vcf.gz",
                      "nfcore_chr22_40kb/mills_and_1000G.indels.vcf.gz"}));
  all.push_back(
      load("gatk_golden/bqsr_chr17/NA12878.chr17_69k_70k.dictFix.bam",
           "gatk_golden/bqsr_chr17/human_g1k_v37.chr17_1Mb.fasta",
           {"gatk_golden/bqsr_chr17/dbsnp_132.b37.excluding_sites_after_129.chr17_69k_70k.vcf"}));
  return all;
}

TEST(BqsrCounting, SortReduceEqualsDenseOnCpu) {
  for (const Input& in : inputs()) {
    for (const bool indels : {false, true}) {
      const std::string dense = report(in, {.indel_tables = indels});
      const std::string sorted =
          report(in, {.indel_tables = indels, .method = CountingMethod::kSortReduce});
      EXPECT_GT(dense.size(), 50000u);
      EXPECT_TRUE(dense == sorted) << "indels " << indels;
    }
  }
}

TEST(BqsrCountingGpu, GpuTablesEqualCpuTables) {
  if (!test::gpu_available()) GTEST_SKIP() << "no usable GPU";
  for (const Input& in : inputs()) {
    for (const bool indels : {false, true}) {
      const std::string cpu = report(in, {.indel_tables = indels});
      const std::string gpu = report(in, {.indel_tables = indels,
                                          .method = CountingMethod::kSortReduce,
                                          .backend = kernels::Backend::kGpu});
      EXPECT_TRUE(cpu == gpu) << "indels " << indels;
    }
  }
}

}  // namespace
}  // namespace gpp::stages::bqsr
