// Known-sites VCF records (io/genome/known_sites.hpp): the input follows a fixed
// "##fileformat=VCFv4.2" line (so HTSlib takes the file for VCF) in a scratch .vcf, loaded whole
// (an unindexed file) and queried as BQSR queries it.
#include <cstdint>
#include <string>

#include "fuzz/fuzz_support.hpp"
#include "io/genome/known_sites.hpp"

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
  return 0;
}
