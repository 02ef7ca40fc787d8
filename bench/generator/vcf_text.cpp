#include "bench/generator/vcf_text.hpp"

namespace gpp::bench {

namespace {

std::string header(const std::vector<ContigVariants>& contigs, const std::string& reference) {
  std::string text =
      "##fileformat=VCFv4.2\n##source=bench_generate\n##reference=file://" + reference + "\n";
  for (const ContigVariants& c : contigs) {
    text += "##contig=<ID=" + c.name + ",length=" + std::to_string(c.length) + ">\n";
  }
  return text;
}

// CHROM POS ID REF ALT QUAL FILTER INFO
void append_site(std::string& text, const std::string& contig, const Variant& v) {
  text += contig;
  text += '\t';
  text += std::to_string(v.pos + 1);
  text += "\t.\t";
  text += v.ref;
  text += '\t';
  text += v.alt;
  text += "\t.\tPASS\t.";
}

}  // namespace

std::string truth_vcf_text(const std::vector<ContigVariants>& contigs, const std::string& sample,
                           const std::string& reference) {
  std::string text = header(contigs, reference);
  text +=
      "##FORMAT=<ID=GT,Number=1,Type=String,Description=\"Genotype, phased: first allele on "
      "haplotype 1 "
      "(reads tagged HP:i:1), second on haplotype 2\">\n";
  text += "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\t" + sample + "\n";
  for (const ContigVariants& c : contigs) {
    for (const Variant& v : *c.variants) {
      append_site(text, c.name, v);
      text += "\tGT\t";
      text += v.genotype();
      text += '\n';
    }
  }
  return text;
}

std::string known_sites_vcf_text(const std::vector<ContigVariants>& contigs,
                                 const std::string& reference) {
  std::string text = header(contigs, reference);
  text += "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n";
  for (const ContigVariants& c : contigs) {
    for (const Variant& v : *c.variants) {
      append_site(text, c.name, v);
      text += '\n';
    }
  }
  return text;
}

}  // namespace gpp::bench
