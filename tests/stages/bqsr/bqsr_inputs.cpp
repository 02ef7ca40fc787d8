#include "tests/stages/bqsr/bqsr_inputs.hpp"

#include <utility>
#include <vector>

#include "io/bam/alignment_reader.hpp"
#include "io/genome/known_sites.hpp"
#include "io/genome/reference.hpp"
#include "tests/test_support.hpp"

namespace gpp::test {

BqsrInput load_bqsr_input(const std::string& bam, const std::string& fasta,
                          const std::vector<std::string>& vcfs) {
  BqsrInput in;
  in.name = bam;
  in.reads = io::read_alignments(data_path(bam), {}, in.header);
  io::Reference reference(data_path(fasta));
  const std::size_t n = in.header.contigs().size();
  in.genome.contig_bases.resize(n);
  in.genome.known_sites.resize(n);
  for (std::size_t t = 0; t < n; ++t) {
    const io::Contig& contig = in.header.contigs()[t];
    if (!reference.has_contig(contig.name)) continue;
    in.genome.contig_bases[t] = reference.fetch(contig.name, 0, contig.length);
    std::vector<io::VariantSpan> spans;
    for (const std::string& vcf : vcfs) {
      io::KnownSites sites(data_path(vcf));
      const auto found = sites.contig_sites(contig.name);
      spans.insert(spans.end(), found.begin(), found.end());
    }
    in.genome.known_sites[t] = stages::bqsr::KnownSiteIndex(std::move(spans));
  }
  return in;
}

std::vector<BqsrInput> bqsr_inputs() {
  std::vector<BqsrInput> all;
  all.push_back(load_bqsr_input("nfcore_chr22_40kb/test2.paired_end.sorted.bam",
                                "nfcore_chr22_40kb/genome.fasta",
                                {"nfcore_chr22_40kb/dbsnp_146.hg38.vcf.gz",
                                 "nfcore_chr22_40kb/mills_and_1000G.indels.vcf.gz"}));
  all.push_back(load_bqsr_input(
      "gatk_golden/bqsr_chr17/NA12878.chr17_69k_70k.dictFix.bam",
      "gatk_golden/bqsr_chr17/human_g1k_v37.chr17_1Mb.fasta",
      {"gatk_golden/bqsr_chr17/dbsnp_132.b37.excluding_sites_after_129.chr17_69k_70k.vcf"}));
  return all;
}

}  // namespace gpp::test
