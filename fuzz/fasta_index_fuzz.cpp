// FASTA index lines (.fai: name, length, offset, line bases, line bytes) as io::Reference loads
// them through HTSlib's faidx, beside a fixed small FASTA; then the start and end of every contig
// are fetched and a header is checked against the dictionary, as the commands do.
#include <cstdint>
#include <string>

#include "fuzz/fuzz_support.hpp"
#include "io/genome/reference.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static gpp::fuzz::ScratchFile fasta(".fa");
  static const std::string fasta_path =
      fasta.write(">chr1 first\nACGTACGTAC\nGTACGTACGT\nACG\n>chr2\nNNNNNNNNNN\nacgtn\n>chr3\nA\n");
  static gpp::fuzz::ScratchFile index(fasta, ".fai");
  index.write(gpp::fuzz::as_text(data, size));
  static const gpp::io::Header header =
      gpp::io::Header::from_text("@SQ\tSN:chr1\tLN:23\n@SQ\tSN:chr2\tLN:15\n");
  gpp::fuzz::expect_parsed_or_refused([&] {
    const gpp::io::Reference reference(fasta_path);
    for (const auto& contig : reference.contigs()) {
      reference.fetch(contig.name, 0, 64);
      reference.fetch(contig.name, contig.length - 64, contig.length);
    }
    reference.check_matches(header, "fuzz.bam");
  });
  return 0;
}
