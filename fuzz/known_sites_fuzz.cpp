// Known-sites VCF records (io/genome/known_sites.hpp) and known variants (--dbsnp,
// io/genome/known_variants.hpp): the input follows a fixed "##fileformat=VCFv4.2" line (so HTSlib
// takes the file for VCF) in a scratch .vcf, loaded whole (an unindexed file) and queried as BQSR,
// the caller's --dbsnp annotation and its --alleles force-calling query it.
#include <cstdint>
#include <string>

#include "fuzz/fuzz_support.hpp"
#include "io/genome/known_sites.hpp"
#include "io/genome/known_variants.hpp"
#include "stages/call/given_alleles.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static gpp::fuzz::ScratchFile vcf(".vcf");
  const std::string& path =
      vcf.write("##fileformat=VCFv4.2\n" + std::string(gpp::fuzz::as_text(data, size)));
  gpp::fuzz::expect_parsed_or_refused([&] {
    gpp::io::KnownSites sites(path);
    for (const char* contig : {"chr1", "1", "20"}) {
      sites.contig_sites(contig);
      sites.query(contig, 100, 200);
    }
  });
  gpp::fuzz::expect_parsed_or_refused([&] {
    const gpp::io::KnownVariants known(path);
    for (const std::string& contig : known.contigs()) {
      const gpp::io::KnownVariantWindow window = known.window(contig, 0, 1 << 20);
      for (const std::int64_t position : {0, 99, 100, 1000}) window.starting_at(position);
      // --alleles: the records split into given events, the loci and regions they reach.
      const gpp::stages::call::GivenAlleles given(window.records(), true);
      for (const std::int64_t position : {0, 99, 100, 1000}) given.overlaps(position);
      given.events_for_region({0, 1 << 20}, 50);
    }
  });
  return 0;
}
