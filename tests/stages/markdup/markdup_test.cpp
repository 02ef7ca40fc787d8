// markdup against Picard MarkDuplicates 2.27.5 (Debian picard-tools) run on the same input after
// `samtools sort`: every record's FLAG in the same order, and the metrics file's rows and
// histograms (all but its two header comment lines) identical.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/bam/alignment_reader.hpp"
#include "io/bam/alignment_writer.hpp"
#include "stages/markdup/duplication_metrics.hpp"
#include "stages/markdup/mark_duplicates.hpp"
#include "tests/stages/markdup/markdup_cases.hpp"
#include "tests/test_support.hpp"

namespace gpp::stages::markdup {
namespace {

using test::run_command;
using test::shell_quote;

bool picard_available() { return run_command("command -v PicardCommandLine").exit_code == 0; }

// Skips without Picard unless the run requires the peers (scripts/test.sh sets GPP_REQUIRE_PEERS).
#define REQUIRE_PICARD()                                                           \
  do {                                                                             \
    if (!picard_available()) {                                                     \
      if (std::getenv("GPP_REQUIRE_PEERS") != nullptr) FAIL() << "Picard missing"; \
      GTEST_SKIP() << "PicardCommandLine not installed";                           \
    }                                                                              \
  } while (0)

// The metrics file without its first five lines (command line and date comments).
std::string metrics_body(const std::string& path) {
  std::istringstream in(test::read_file(path));
  std::string line;
  std::string body;
  for (int n = 0; std::getline(in, line); ++n) {
    if (n >= 5) body += line + "\n";
  }
  return body;
}

// QNAME, FLAG, RNAME, POS of every record, in file order.
std::string flag_table(const std::string& bam) {
  const auto r = run_command("samtools view " + shell_quote(bam) + " | cut -f 1-4");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

// Runs ours on `input` and Picard on `samtools sort` of it; compares flags and metrics.
void expect_same_as_picard(const std::string& input, const std::string& label,
                           const std::string& extra = "") {
  test::TempDir dir;
  const std::string sorted = dir.file("sorted.bam");
  ASSERT_EQ(
      run_command("samtools sort -o " + shell_quote(sorted) + " " + shell_quote(input)).exit_code,
      0);
  const auto picard =
      run_command("PicardCommandLine MarkDuplicates I=" + shell_quote(sorted) +
                  " O=" + shell_quote(dir.file("picard.bam")) +
                  " M=" + shell_quote(dir.file("picard.txt")) + " VALIDATION_STRINGENCY=SILENT");
  ASSERT_EQ(picard.exit_code, 0) << picard.err;
  const auto ours = run_command(shell_quote(test::binary_path()) + " markdup --device cpu -I " +
                                shell_quote(input) + " -O " + shell_quote(dir.file("ours.bam")) +
                                " -M " + shell_quote(dir.file("ours.txt")) + extra);
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  const std::string expected = flag_table(dir.file("picard.bam"));
  EXPECT_GT(expected.size(), 0u);
  EXPECT_TRUE(flag_table(dir.file("ours.bam")) == expected)
      << label << ": flags or order differ from Picard";
  EXPECT_EQ(metrics_body(dir.file("ours.txt")), metrics_body(dir.file("picard.txt"))) << label;
}

TEST(MarkdupConformance, RealBamsMatchPicard) {
  REQUIRE_PICARD();
  for (const char* input :
       {"real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam",
        "real_na12878_chr20_hg19/HG002_NIST_150bp_downsampled_30x.chr20.10_10p1mb.bam",
        "nfcore_chr22_40kb/test.paired_end.sorted.bam",
        "nfcore_chr22_40kb/test2.paired_end.sorted.bam", "nfcore_chr22_40kb/NA12878.chr22.bam",
        "gatk_golden/applybqsr/HiSeq.1mb.1RG.2k_lines.alternate.bam",
        "gatk_golden/bqsr_chr17/NA12878.chr17_69k_70k.dictFix.bam"}) {
    expect_same_as_picard(test::data_path(input), input);
  }
}

TEST(MarkdupConformance, ShuffledInputEqualsSamtoolsSortThenPicard) {
  REQUIRE_PICARD();
  test::TempDir dir;
  io::Header header;
  const io::ReadBatch reads = io::read_alignments(
      test::data_path("nfcore_chr22_40kb/test.paired_end.sorted.bam"), {}, header);
  std::vector<std::uint32_t> reversed(reads.size());
  for (std::size_t i = 0; i < reads.size(); ++i)
    reversed[i] = static_cast<std::uint32_t>(reads.size() - 1 - i);
  io::Header unsorted = header.clone();
  unsorted.set_sort_order("unsorted");
  io::write_alignments(dir.file("reversed.bam"), unsorted, reads, reversed, {});
  expect_same_as_picard(dir.file("reversed.bam"), "reversed input");
}

TEST(MarkdupConformance, SyntheticEdgeCasesMatchPicard) {
  REQUIRE_PICARD();
  test::TempDir dir;
  struct Case {
    test::MarkdupCaseOptions options;
    std::string label;
  };
  const std::vector<Case> cases = {
      {{.seed = 1}, "mixed libraries"},
      {{.seed = 2, .positions = 8, .templates = 4000}, "dense duplicate sets"},
      {{.seed = 3, .multiple_libraries = false}, "one library"},
      {{.seed = 4, .templates = 1500, .single_end_only = true}, "single-end"},
  };
  for (const Case& c : cases) {
    std::ofstream(dir.file("case.sam")) << test::make_markdup_case(c.options);
    ASSERT_EQ(run_command("samtools view -b -o " + shell_quote(dir.file("case.bam")) + " " +
                          shell_quote(dir.file("case.sam")))
                  .exit_code,
              0);
    expect_same_as_picard(dir.file("case.bam"), c.label);
  }
}

TEST(MarkdupConformance, PixelDistanceAndRegexOptions) {
  REQUIRE_PICARD();
  test::TempDir dir;
  std::ofstream(dir.file("case.sam")) << test::make_markdup_case({.seed = 5, .positions = 10});
  ASSERT_EQ(run_command("samtools view -b -o " + shell_quote(dir.file("case.bam")) + " " +
                        shell_quote(dir.file("case.sam")))
                .exit_code,
            0);
  const std::string sorted = dir.file("sorted.bam");
  ASSERT_EQ(run_command("samtools sort -o " + shell_quote(sorted) + " " +
                        shell_quote(dir.file("case.bam")))
                .exit_code,
            0);
  // Larger distance, then optical detection off: metrics must follow Picard's in both.
  for (const auto& [picard_args, our_args] : std::vector<std::pair<std::string, std::string>>{
           {"OPTICAL_DUPLICATE_PIXEL_DISTANCE=2500", " --optical-duplicate-pixel-distance 2500"},
           {"READ_NAME_REGEX=null", " --read-name-regex null"}}) {
    ASSERT_EQ(run_command("PicardCommandLine MarkDuplicates I=" + shell_quote(sorted) + " O=" +
                          shell_quote(dir.file("p.bam")) + " M=" + shell_quote(dir.file("p.txt")) +
                          " VALIDATION_STRINGENCY=SILENT " + picard_args)
                  .exit_code,
              0);
    ASSERT_EQ(
        run_command(shell_quote(test::binary_path()) + " markdup -I " +
                    shell_quote(dir.file("case.bam")) + " -O " + shell_quote(dir.file("o.bam")) +
                    " -M " + shell_quote(dir.file("o.txt")) + our_args)
            .exit_code,
        0);
    EXPECT_EQ(metrics_body(dir.file("o.txt")), metrics_body(dir.file("p.txt"))) << picard_args;
    EXPECT_TRUE(flag_table(dir.file("o.bam")) == flag_table(dir.file("p.bam"))) << picard_args;
  }
}

// Groups `input` by read name with `group_command` ("sort -n" or "collate"), runs Picard with
// ASSUME_SORT_ORDER=queryname and ours with `our_args` on the grouped file, and compares every
// record's flag (Picard's output put in coordinate order by samtools sort; ours is coordinate
// sorted, stably in input order, as samtools sorts) and the metrics.
void expect_same_as_picard_queryname(const std::string& input, const std::string& label,
                                     const std::string& group_command,
                                     const std::string& our_args) {
  test::TempDir dir;
  const std::string grouped = dir.file("grouped.bam");
  ASSERT_EQ(run_command("samtools " + group_command + " -o " + shell_quote(grouped) + " " +
                        shell_quote(input))
                .exit_code,
            0);
  const auto picard = run_command("PicardCommandLine MarkDuplicates I=" + shell_quote(grouped) +
                                  " O=" + shell_quote(dir.file("picard.bam")) +
                                  " M=" + shell_quote(dir.file("picard.txt")) +
                                  " ASSUME_SORT_ORDER=queryname VALIDATION_STRINGENCY=SILENT");
  ASSERT_EQ(picard.exit_code, 0) << picard.err;
  ASSERT_EQ(run_command("samtools sort -o " + shell_quote(dir.file("picard.sorted.bam")) + " " +
                        shell_quote(dir.file("picard.bam")))
                .exit_code,
            0);
  const auto ours = run_command(shell_quote(test::binary_path()) + " markdup --device cpu -I " +
                                shell_quote(grouped) + " -O " + shell_quote(dir.file("ours.bam")) +
                                " -M " + shell_quote(dir.file("ours.txt")) + our_args);
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  const std::string expected = flag_table(dir.file("picard.sorted.bam"));
  EXPECT_GT(expected.size(), 0u);
  EXPECT_TRUE(flag_table(dir.file("ours.bam")) == expected)
      << label << ": flags or order differ from Picard";
  EXPECT_EQ(metrics_body(dir.file("ours.txt")), metrics_body(dir.file("picard.txt"))) << label;
}

TEST(MarkdupConformance, QuerynameGroupedInputMatchesPicardQuerynameMode) {
  REQUIRE_PICARD();
  for (const char* input :
       {"nfcore_chr22_40kb/test.paired_end.sorted.bam",
        "real_na12878_chr20_hg19/HG002_NIST_150bp_downsampled_30x.chr20.10_10p1mb.bam",
        "real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam"}) {
    expect_same_as_picard_queryname(test::data_path(input), input, "sort -n",
                                    " --assume-sort-order queryname");
  }
  test::TempDir dir;
  for (const auto& [seed, templates] :
       std::vector<std::pair<unsigned, int>>{{11, 3000}, {12, 4000}}) {
    std::ofstream(dir.file("case.sam"))
        << test::make_markdup_case({.seed = seed, .positions = 10, .templates = templates});
    ASSERT_EQ(run_command("samtools view -b -o " + shell_quote(dir.file("case.bam")) + " " +
                          shell_quote(dir.file("case.sam")))
                  .exit_code,
              0);
    // samtools sort -n writes SO:queryname, which alone selects Picard's queryname semantics.
    expect_same_as_picard_queryname(dir.file("case.bam"), "synthetic, name-sorted", "sort -n", "");
    // collate groups without sorting (SO is not queryname): the option is needed.
    expect_same_as_picard_queryname(dir.file("case.bam"), "synthetic, collated", "collate",
                                    " --assume-sort-order queryname");
  }
}

TEST(Markdup, QuerynameAssumptionThatLiesIsRejected) {
  test::TempDir dir;
  const std::string out = dir.file("out.bam");
  const auto r =
      run_command(shell_quote(test::binary_path()) + " markdup --assume-sort-order queryname -I " +
                  shell_quote(test::data_path("nfcore_chr22_40kb/test.paired_end.sorted.bam")) +
                  " -O " + shell_quote(out) + " -M " + shell_quote(dir.file("m.txt")));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("gpu-pipeline: error: input is not grouped by read name"), std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_FALSE(std::filesystem::exists(dir.file("m.txt")));
}

TEST(Markdup, QuerynameSemanticsMarkWholeTemplates) {
  // A duplicate template's secondary, supplementary and unmapped records are flagged too, which
  // coordinate-order marking never does.
  test::TempDir dir;
  std::ofstream(dir.file("case.sam"))
      << test::make_markdup_case({.seed = 13, .positions = 8, .templates = 3000});
  ASSERT_EQ(run_command("samtools sort -n -o " + shell_quote(dir.file("grouped.bam")) + " " +
                        shell_quote(dir.file("case.sam")))
                .exit_code,
            0);
  io::Header header;
  const io::ReadBatch grouped = io::read_alignments(dir.file("grouped.bam"), {}, header);
  ASSERT_TRUE(uses_queryname_semantics(header, ""));
  MarkDuplicatesOptions options;
  options.queryname_grouped = true;
  const auto marked = mark_duplicates(grouped, header, options, kernels::Backend::kCpu);
  std::int64_t extra = 0;
  for (std::size_t i = 0; i < grouped.size(); ++i) {
    const bool duplicate = marked.flags[i] & io::flag::kDuplicate;
    // Every record of a name shares the verdict of its template.
    if (i > 0 && grouped.read_name(i) == grouped.read_name(i - 1)) {
      EXPECT_EQ(duplicate, static_cast<bool>(marked.flags[i - 1] & io::flag::kDuplicate))
          << grouped.read_name(i);
    }
    if (duplicate &&
        (grouped.flag[i] & (io::flag::kSecondary | io::flag::kSupplementary | io::flag::kUnmapped)))
      ++extra;
  }
  EXPECT_GT(extra, 0);
}

TEST(Markdup, RemoveDuplicatesDropsExactlyTheMarkedRecords) {
  test::TempDir dir;
  const std::string input = test::data_path("nfcore_chr22_40kb/test.paired_end.sorted.bam");
  const std::string bin = shell_quote(test::binary_path());
  ASSERT_EQ(run_command(bin + " markdup -I " + shell_quote(input) + " -O " +
                        shell_quote(dir.file("m.bam")))
                .exit_code,
            0);
  ASSERT_EQ(run_command(bin + " markdup --remove-duplicates -I " + shell_quote(input) + " -O " +
                        shell_quote(dir.file("r.bam")))
                .exit_code,
            0);
  EXPECT_EQ(run_command("samtools view -c -F 1024 " + shell_quote(dir.file("m.bam"))).out,
            run_command("samtools view -c " + shell_quote(dir.file("r.bam"))).out);
  EXPECT_EQ(run_command("samtools view -c -f 1024 " + shell_quote(dir.file("r.bam"))).out, "0\n");
  EXPECT_EQ(run_command("samtools view -c -f 1024 " + shell_quote(dir.file("m.bam"))).out,
            "1656\n");  // Picard's count
}

TEST(MarkdupMetrics, LibrarySizeAndFormattingFollowPicard) {
  // A row of a GATK test metrics file (library Solexa-16404): 3 unpaired reads, 9 pairs, 3
  // unmapped, 2 duplicate pairs -> 0.190476 and 17.
  LibraryMetrics m{.library = "Solexa-16404",
                   .unpaired_reads_examined = 3,
                   .read_pairs_examined = 9,
                   .unmapped_reads = 3,
                   .read_pair_duplicates = 2};
  calculate_derived_fields(m);
  EXPECT_EQ(format_picard_double(m.percent_duplication), "0.190476");
  ASSERT_TRUE(m.estimated_library_size.has_value());
  EXPECT_EQ(*m.estimated_library_size, 17);
  EXPECT_FALSE(estimate_library_size(10, 10).has_value());
  EXPECT_EQ(format_picard_double(1178.0), "1178");
  EXPECT_EQ(format_picard_double(0.5), "0.5");
}

using MarkdupGpu = ::gpp::test::GpuTest;

TEST_F(MarkdupGpu, GpuEqualsCpu) {
  test::TempDir dir;
  std::ofstream(dir.file("case.sam")) << test::make_markdup_case({.seed = 7, .templates = 20000});
  for (const std::string& path :
       {dir.file("case.sam"),
        test::data_path("real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam")}) {
    io::Header header;
    const io::ReadBatch reads = io::read_alignments(path, {}, header);
    const auto cpu = mark_duplicates(reads, header, {}, kernels::Backend::kCpu);
    const auto gpu = mark_duplicates(reads, header, {}, kernels::Backend::kGpu);
    EXPECT_EQ(gpu.order, cpu.order) << path;
    EXPECT_EQ(gpu.flags, cpu.flags) << path;
    EXPECT_EQ(format_metrics_file("", "", gpu.metrics, gpu.single_library, gpu.histograms),
              format_metrics_file("", "", cpu.metrics, cpu.single_library, cpu.histograms));
  }
  // Queryname semantics on name-sorted input.
  ASSERT_EQ(run_command("samtools sort -n -o " + shell_quote(dir.file("grouped.bam")) + " " +
                        shell_quote(dir.file("case.sam")))
                .exit_code,
            0);
  io::Header header;
  const io::ReadBatch grouped = io::read_alignments(dir.file("grouped.bam"), {}, header);
  MarkDuplicatesOptions options;
  options.queryname_grouped = true;
  const auto cpu = mark_duplicates(grouped, header, options, kernels::Backend::kCpu);
  const auto gpu = mark_duplicates(grouped, header, options, kernels::Backend::kGpu);
  EXPECT_EQ(gpu.flags, cpu.flags);
  EXPECT_EQ(format_metrics_file("", "", gpu.metrics, gpu.single_library, gpu.histograms),
            format_metrics_file("", "", cpu.metrics, cpu.single_library, cpu.histograms));
}

}  // namespace
}  // namespace gpp::stages::markdup
