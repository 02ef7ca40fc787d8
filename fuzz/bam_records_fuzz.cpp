// BAM records (the bytes after the header, uncompressed) into ReadBatch columns through our
// native decoder: find_bam_records then decode_bam_records, filling every column and keeping the
// records, as io/bam/alignment_reader.cpp does for each chunk.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz/fuzz_support.hpp"
#include "io/bam/bam_decoding.hpp"
#include "io/reads/header.hpp"
#include "io/reads/read_batch.hpp"

namespace {

const gpp::io::Header& dictionary() {
  static const gpp::io::Header header = gpp::io::Header::from_text(
      "@HD\tVN:1.6\tSO:coordinate\n@SQ\tSN:chr1\tLN:1000\n@SQ\tSN:chr2\tLN:2147483647\n"
      "@RG\tID:rg1\tSM:s\tLB:lib1\n@RG\tID:rg2\tSM:s\tLB:lib2\n");
  return header;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The records are read in place: give them memory of their own so ASan sees the input's end.
  std::vector<std::uint8_t> bytes(data, data + size);
  const std::string path = "fuzz.bam";
  gpp::fuzz::expect_parsed_or_refused([&] {
    std::vector<std::uint64_t> starts;
    gpp::io::detail::find_bam_records(bytes.data(), bytes.size(), 0, starts, path);
    for (const bool keep : {false, true}) {
      gpp::io::ReadBatch batch;
      gpp::io::detail::decode_bam_records(bytes.data(), starts, dictionary(), batch, path, keep);
      // Every column the decoder filled is read back, as the stages read it.
      std::size_t sum = 0;
      for (std::size_t i = 0; i < batch.size(); ++i) {
        sum += batch.read_name(i).size() + batch.read_cigar(i).size();
        if (!keep)
          sum += batch.read_seq(i).size() + batch.read_qual(i).size() + batch.read_aux(i).size();
      }
      if (sum == static_cast<std::size_t>(-1)) std::abort();
    }
  });
  return 0;
}
