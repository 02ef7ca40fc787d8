// Inputs the fuzz targets (fuzz/) found to crash, allocate without bound or reach undefined
// behaviour, reduced by hand: tests/data/bad/<target>/. Each must now end in the exact message
// (or, for a valid file, be read correctly).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "io/bam/alignment_reader.hpp"
#include "io/genome/intervals.hpp"
#include "io/genome/known_sites.hpp"
#include "io/genome/reference.hpp"
#include "io/text/text_input.hpp"
#include "stages/bqsr/recal_report.hpp"
#include "tests/test_support.hpp"

namespace gpp {
namespace {

template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// fuzz_recal_table: indels_context_size 11 made RecalTables allocate 38 GB per read group (an
// out-of-memory abort under ASan, bad_alloc or the OOM killer otherwise).
TEST(FuzzRegressions, RecalTableTooLargeForMemoryIsRefused) {
  const std::string path = test::data_path("bad/recal_table/indels_context_size_11.table");
  EXPECT_EQ(error_of([&] {
              stages::bqsr::parse_recalibration_report(io::read_text_file(path), path,
                                                       std::uint64_t{1} << 30);
            }),
            path +
                ": the recalibration tables need 36104 MiB (read groups 1, context sizes 2 and "
                "11, maximum cycle 500), more than the 1024 MiB available");
}

TEST(FuzzRegressions, RecalTableArgumentsOutsideGatkRangesAreRefused) {
  std::string text =
      io::read_text_file(test::data_path("bad/recal_table/indels_context_size_11.table"));
  text.replace(text.find("indels_context_size 11"), 22, "indels_context_size 14");
  EXPECT_EQ(error_of([&] { stages::bqsr::parse_recalibration_report(text, "t.table"); }),
            "t.table: malformed recalibration table (indels_context_size 14 is outside 1..13)");
}

// fuzz_bgzf_blocks: a block footer's ISIZE sized the output buffer unchecked (3.3 GB here).
TEST(FuzzRegressions, BgzfBlockClaimingMoreThan64KiBIsRefused) {
  const std::string path = test::data_path("bad/bgzf_blocks/isize_over_64k.bam");
  io::Header header;
  EXPECT_EQ(error_of([&] { io::read_alignments(path, {}, header); }),
            path +
                ": corrupt BGZF block at byte 83 (it claims 3367298456 uncompressed bytes; at "
                "most 65536)");
}

// fuzz_fasta_index: a .fai line of 0 bases per line divided by zero in HTSlib's fetch (SIGFPE).
TEST(FuzzRegressions, FastaIndexLineWithoutBasesPerLineIsRefused) {
  const std::string path = test::data_path("bad/fasta_index/zero_bases_per_line.fa");
  EXPECT_EQ(error_of([&] { io::Reference reference(path); }),
            path +
                ".fai: line 1 is not a FASTA index line (name, length, offset, bases per line, "
                "bytes per line; `samtools faidx` rebuilds the index)");
}

// fuzz_bam_records: records without CIGAR operations or aux fields left those columns without
// memory, and the decoder passed their null data to memcpy (undefined even for 0 bytes).
TEST(FuzzRegressions, UnmappedRecordsWithoutCigarOrTagsAreRead) {
  const std::string path = test::data_path("bad/bam_records/unmapped_without_cigar_or_tags.bam");
  for (const bool keep : {false, true}) {
    io::Header header;
    const io::ReadBatch batch = io::read_alignments(path, {.keep_bam_records = keep}, header);
    ASSERT_EQ(batch.size(), 2u);
    EXPECT_EQ(batch.read_name(0), "u1");
    EXPECT_EQ(batch.read_name(1), "u2");
    EXPECT_EQ(batch.flag[1], 4);
    EXPECT_TRUE(batch.read_cigar(0).empty());
    EXPECT_TRUE(batch.read_cigar(1).empty());
    EXPECT_EQ(batch.seq_length(0), 0u);
    EXPECT_EQ(batch.seq_length(1), 4u);
    if (!keep) EXPECT_EQ(batch.read_seq(1), "ACGT");
    EXPECT_TRUE(batch.read_aux(1).empty());
  }
}

// An interval_list start of -2^63: start - 1 overflowed (UBSan: signed integer overflow).
TEST(FuzzRegressions, IntervalWithNegativeStartIsMalformed) {
  const std::string path = test::data_path("bad/intervals/min_int64_start.interval_list");
  EXPECT_EQ(error_of([&] {
              io::parse_intervals({path}, {{"chr1", 1000}});
            }),
            path + " line 1: expected 'contig start end strand name'");
}

// A known site at POS 2^63 - 1: POS - 1 + len(REF) overflowed (UBSan: signed integer overflow).
TEST(FuzzRegressions, KnownSiteBeyondJavaIntPositionIsMalformed) {
  const std::string path = test::data_path("bad/known_sites/pos_beyond_int32.vcf");
  EXPECT_EQ(error_of([&] { io::KnownSites(path).contig_sites("chr1"); }),
            path + ": malformed VCF record at line 3");
}

}  // namespace
}  // namespace gpp
