// A whole alignment file into ReadBatch columns, as every subcommand reads its input.
//
// An input starting with the BAM magic is an uncompressed BAM stream (header, then records): it
// is BGZF-compressed into a scratch .bam and read twice, by our native reader (AlignmentReader:
// BgzfReader, BamChunkReader, decode_bam_records; columns filled and records kept) and by
// HTSlib's sam_read1 into the columns (record_codec's append_record, the path SAM and CRAM
// records take). Anything else is written as it is, as SAM text read through AlignmentReader
// (HTSlib's parser, then append_record). A header claiming more text or contigs than the file
// holds is refused by AlignmentReader before HTSlib allocates the claim.
#include <htslib/bgzf.h>
#include <htslib/sam.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "fuzz/fuzz_support.hpp"
#include "io/bam/alignment_reader.hpp"
#include "io/bam/hts_handles.hpp"
#include "io/bam/record_codec.hpp"

namespace {

bool read_natively(const std::string& path) {
  for (const bool keep : {false, true}) {
    gpp::io::AlignmentReader reader(path, {.read_ahead_bytes = 1 << 16, .keep_bam_records = keep});
    gpp::io::ReadBatch batch;
    while (reader.read_into(batch, 7) > 0) {
    }
  }
  return true;
}

void read_with_htslib(const std::string& path) {
  gpp::io::hts::File file(hts_open(path.c_str(), "r"));
  if (!file) return;
  sam_hdr_t* h = sam_hdr_read(file.get());
  if (h == nullptr) return;
  const gpp::io::Header header(h);
  gpp::io::hts::Record record(bam_init1());
  gpp::io::ReadBatch batch;
  while (sam_read1(file.get(), h, record.get()) >= 0)
    gpp::io::detail::append_record(*record, header, batch);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static gpp::fuzz::ScratchFile bam(".bam");
  static gpp::fuzz::ScratchFile sam(".sam");
  if (size >= 4 && std::memcmp(data, "BAM\1", 4) == 0) {
    BGZF* out = bgzf_open(bam.path().c_str(), "w");
    if (out == nullptr || bgzf_write(out, data, size) < 0 || bgzf_close(out) != 0) std::abort();
    // HTSlib's bam_read1 allocates a record's stated length before reading it; it reads only
    // files our reader took whole (every record within the file).
    bool accepted = false;
    gpp::fuzz::expect_parsed_or_refused([&] { accepted = read_natively(bam.path()); });
    if (accepted) gpp::fuzz::expect_parsed_or_refused([&] { read_with_htslib(bam.path()); });
  } else {
    sam.write(gpp::fuzz::as_text(data, size));
    gpp::fuzz::expect_parsed_or_refused([&] { read_natively(sam.path()); });
  }
  return 0;
}
