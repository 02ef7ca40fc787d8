// Inputs the fuzz targets (fuzz/) found to crash, allocate without bound or reach undefined
// behaviour, reduced by hand: tests/data/bad/<target>/. Each must now end in the exact message
// (or, for a valid file, be read correctly).
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <utility>

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

// fuzz_alignment_file: a BAM header's text length (4 GB in 11 bytes) and contig count (2^31 - 1
// in 84 bytes) were allocated by HTSlib as claimed; the file is now walked first and refused.
TEST(FuzzRegressions, BamHeaderClaimingMoreThanTheFileHoldsIsRefused) {
  for (const char* name : {"header_text_4gb.bam", "contig_count_2g.bam"}) {
    const std::string path = test::data_path(std::string("bad/alignment_file/") + name);
    io::Header header;
    EXPECT_EQ(error_of([&] { io::read_alignments(path, {}, header); }),
              path + ": truncated or corrupt BAM data in the header");
  }
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

std::string bad_fasta_index_message(const std::string& fasta, int line) {
  return fasta + ".fai: line " + std::to_string(line) +
         " is not a FASTA index line (name, length, offset, bases per line, bytes per line; "
         "`samtools faidx` rebuilds the index)";
}

// fuzz_fasta_index: a .fai line of 0 bases per line divided by zero in HTSlib's fetch (SIGFPE).
TEST(FuzzRegressions, FastaIndexLineWithoutBasesPerLineIsRefused) {
  const std::string path = test::data_path("bad/fasta_index/zero_bases_per_line.fa");
  EXPECT_EQ(error_of([&] { io::Reference reference(path); }), bad_fasta_index_message(path, 1));
}

// fuzz_fasta_index: bytes per line beyond a 32-bit int wrapped in HTSlib's index (to 0: SIGFPE).
TEST(FuzzRegressions, FastaIndexLineWidthBeyondIntIsRefused) {
  const std::string path = test::data_path("bad/fasta_index/line_width_beyond_int.fa");
  EXPECT_EQ(error_of([&] { io::Reference reference(path); }), bad_fasta_index_message(path, 1));
}

// fuzz_fasta_index: a NUL byte in a .fai line hid the fields after it from HTSlib's parser, which
// then divided by a bases-per-line of 0 (SIGFPE).
TEST(FuzzRegressions, FastaIndexLineWithANulByteIsRefused) {
  const std::string path = test::data_path("bad/fasta_index/nul_in_name.fa");
  EXPECT_EQ(error_of([&] { io::Reference reference(path); }), bad_fasta_index_message(path, 2));
}

// fuzz_fasta_index (a 4-minute run): a vertical tab at the start of a .fai name ended the name
// for HTSlib, whose fields then shifted to a bases-per-line of 0 (SIGFPE).
TEST(FuzzRegressions, FastaIndexNameWithWhiteSpaceIsRefused) {
  const std::string path = test::data_path("bad/fasta_index/vertical_tab_in_name.fa");
  EXPECT_EQ(error_of([&] { io::Reference reference(path); }), bad_fasta_index_message(path, 1));
}

// fuzz_alignment_file: the read-group cache of the HTSlib path (SAM, CRAM) was keyed by the
// header's address; a header read after another was freed at that address took the old header's
// read-group index (out of range: a heap overflow). Two SAM files with different read groups read
// one after the other.
TEST(FuzzRegressions, ReadGroupsOfFilesReadOneAfterAnother) {
  const test::TempDir dir;
  const auto sam_with_groups = [&](const std::string& name, const std::string& groups) {
    const std::string sam = dir.file(name + ".sam");
    std::ofstream(sam) << "@SQ\tSN:c\tLN:100\n"
                       << groups << "r1\t0\tc\t1\t60\t4M\t*\t0\t0\tACGT\tIIII\tRG:Z:c\n";
    return sam;
  };
  const std::string many =
      sam_with_groups("many", "@RG\tID:a\tSM:s\n@RG\tID:b\tSM:s\n@RG\tID:c\tSM:s\n");
  const std::string one = sam_with_groups("one", "@RG\tID:x\tSM:s\n");
  for (int round = 0; round < 4; ++round) {
    for (const auto& [path, expected] : {std::pair{many, 2}, std::pair{one, -1}}) {
      io::Header header;
      const io::ReadBatch batch = io::read_alignments(path, {}, header);
      ASSERT_EQ(batch.size(), 1u);
      EXPECT_EQ(batch.read_group[0], expected) << path;
    }
  }
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
    if (!keep) {
      EXPECT_EQ(batch.read_seq(1), "ACGT");
    }
    EXPECT_TRUE(batch.read_aux(1).empty());
  }
}

// An interval_list start of -2^63: start - 1 overflowed (UBSan: signed integer overflow).
TEST(FuzzRegressions, IntervalWithNegativeStartIsMalformed) {
  const std::string path = test::data_path("bad/intervals/min_int64_start.interval_list");
  EXPECT_EQ(error_of([&] {
              io::parse_intervals({path}, {{"chr1", 1000}});
            }),
            path + ": line 1: expected 'contig start end strand name'");
}

// A known site at POS 2^63 - 1: POS - 1 + len(REF) overflowed (UBSan: signed integer overflow).
TEST(FuzzRegressions, KnownSiteBeyondJavaIntPositionIsMalformed) {
  const std::string path = test::data_path("bad/known_sites/pos_beyond_int32.vcf");
  EXPECT_EQ(error_of([&] { io::KnownSites(path).contig_sites("chr1"); }),
            path + ": malformed VCF record at line 3");
}

}  // namespace
}  // namespace gpp
