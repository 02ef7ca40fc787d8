// markdup against Picard MarkDuplicates 2.27.5 (Debian picard-tools) run on the same input after
// `samtools sort`: every record's FLAG in the same order, and the metrics file's rows and
// histograms (all but its header comment lines) identical. Without Java, Picard's outputs come from
// the goldens in tests/data/picard_golden/ (picard_peer.hpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "io/bam/alignment_reader.hpp"
#include "io/bam/alignment_writer.hpp"
#include "stages/markdup/duplication_metrics.hpp"
#include "stages/markdup/mark_duplicates.hpp"
#include "tests/stages/markdup/markdup_cases.hpp"
#include "tests/stages/markdup/picard_peer.hpp"
#include "tests/test_support.hpp"

namespace gpp::stages::markdup {
namespace {

using test::flag_table;
using test::metrics_body;
using test::PicardVerdict;
using test::run_command;
using test::shell_quote;

// The golden's name for a file of tests/data: its name without the .bam.
std::string data_case(const std::string& prefix, const std::string& relative) {
  return prefix + std::filesystem::path(relative).stem().string();
}

// make_markdup_case(options) written as dir/case.bam.
std::string write_case_bam(const test::TempDir& dir, const test::MarkdupCaseOptions& options) {
  std::ofstream(dir.file("case.sam")) << test::make_markdup_case(options);
  const std::string bam = dir.file("case.bam");
  EXPECT_EQ(run_command("samtools view -b -o " + shell_quote(bam) + " " +
                        shell_quote(dir.file("case.sam")))
                .exit_code,
            0);
  return bam;
}

// Runs ours (`our_args`) on `input` and Picard (`picard_args`) on `samtools sort` of it, or reads
// the golden `case_name`; compares flags and metrics.
void expect_same_as_picard(const std::string& case_name, const std::string& input,
                           const std::string& picard_args = "",
                           const std::string& our_args = " --device cpu") {
  test::TempDir dir;
  const auto run_picard = [&](PicardVerdict& fresh) {
    const std::string sorted = dir.file("sorted.bam");
    ASSERT_EQ(
        run_command("samtools sort -o " + shell_quote(sorted) + " " + shell_quote(input)).exit_code,
        0);
    const auto run = run_command("PicardCommandLine MarkDuplicates I=" + shell_quote(sorted) +
                                 " O=" + shell_quote(dir.file("picard.bam")) +
                                 " M=" + shell_quote(dir.file("picard.txt")) +
                                 " VALIDATION_STRINGENCY=SILENT" + picard_args);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    fresh.table = flag_table(dir.file("picard.bam"));
    fresh.metrics = metrics_body(dir.file("picard.txt"));
  };
  PicardVerdict picard;
  ASSERT_NO_FATAL_FAILURE(test::picard_verdict(case_name, run_picard, picard));
  const auto ours = run_command(shell_quote(test::binary_path()) + " markdup -I " +
                                shell_quote(input) + " -O " + shell_quote(dir.file("ours.bam")) +
                                " -M " + shell_quote(dir.file("ours.txt")) + our_args);
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  test::expect_same_verdict(picard, flag_table(dir.file("ours.bam")),
                            metrics_body(dir.file("ours.txt")), case_name);
}

const std::vector<std::string> kRealBams = {
    "real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam",
    "real_na12878_chr20_hg19/HG002_NIST_150bp_downsampled_30x.chr20.10_10p1mb.bam",
    "nfcore_chr22_40kb/test.paired_end.sorted.bam",
    "nfcore_chr22_40kb/test2.paired_end.sorted.bam",
    "nfcore_chr22_40kb/NA12878.chr22.bam",
    "gatk_golden/applybqsr/HiSeq.1mb.1RG.2k_lines.alternate.bam",
    "gatk_golden/bqsr_chr17/NA12878.chr17_69k_70k.dictFix.bam"};

TEST(MarkdupConformance, RealBamsMatchPicard) {
  for (const std::string& input : kRealBams) {
    expect_same_as_picard(data_case("coordinate.", input), test::data_path(input));
  }
}

// Under a budget far below the input, marking goes through spilled runs, key ranges and name
// buckets on disk (pipeline/spilled_marking.hpp): the same verdicts as Picard's.
TEST(MarkdupConformance, SpilledMarkingMatchesPicard) {
  const std::string spilled = " --device cpu --max-memory 256K --verbosity ERROR";
  for (const std::string& input : kRealBams) {
    expect_same_as_picard(data_case("coordinate.", input), test::data_path(input), "", spilled);
  }
  test::TempDir dir;
  const std::string bam = write_case_bam(dir, {.seed = 2, .positions = 8, .templates = 4000});
  expect_same_as_picard("coordinate.synthetic_dense_duplicate_sets", bam, "", spilled);
  expect_same_as_picard("coordinate.synthetic_mixed_libraries", write_case_bam(dir, {.seed = 1}),
                        "", spilled);
  expect_same_as_picard(
      "coordinate.synthetic_single_end",
      write_case_bam(dir, {.seed = 4, .templates = 1500, .single_end_only = true}), "", spilled);
}

TEST(MarkdupConformance, ShuffledInputEqualsSamtoolsSortThenPicard) {
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
  expect_same_as_picard("coordinate.test.paired_end.reversed", dir.file("reversed.bam"));
}

TEST(MarkdupConformance, SyntheticEdgeCasesMatchPicard) {
  test::TempDir dir;
  struct Case {
    test::MarkdupCaseOptions options;
    std::string name;
  };
  const std::vector<Case> cases = {
      {{.seed = 1}, "mixed_libraries"},
      {{.seed = 2, .positions = 8, .templates = 4000}, "dense_duplicate_sets"},
      {{.seed = 3, .multiple_libraries = false}, "one_library"},
      {{.seed = 4, .templates = 1500, .single_end_only = true}, "single_end"},
  };
  for (const Case& c : cases) {
    const std::string bam = write_case_bam(dir, c.options);
    expect_same_as_picard("coordinate.synthetic_" + c.name, bam);
  }
}

// Two @RG lines of one ID (invalid SAM that Picard reads): the reads take the last line's
// library, and the first line's library is listed with no reads, as Picard lists it.
TEST(MarkdupConformance, RepeatedReadGroupIdTakesTheLastLine) {
  test::TempDir dir;
  const std::string input = test::data_path("nfcore_chr22_40kb/test.paired_end.sorted.bam");
  const auto view = run_command("samtools view -h " + shell_quote(input));
  ASSERT_EQ(view.exit_code, 0) << view.err;
  const std::size_t read_group = view.out.find("@RG\tID:1\t");
  ASSERT_NE(read_group, std::string::npos);
  std::string sam = view.out;
  sam.insert(read_group, "@RG\tID:1\tSM:testN\tLB:decoy\n");
  std::ofstream(dir.file("repeated.sam")) << sam;
  const std::string bam = dir.file("repeated.bam");
  const auto convert = run_command("samtools view -b -o " + shell_quote(bam) + " " +
                                   shell_quote(dir.file("repeated.sam")));
  ASSERT_EQ(convert.exit_code, 0) << convert.err;
  expect_same_as_picard("coordinate.synthetic_repeated_read_group_id", bam);
  expect_same_as_picard("coordinate.synthetic_repeated_read_group_id", bam, "",
                        " --device cpu --max-memory 64K");
}

TEST(MarkdupConformance, PixelDistanceAndRegexOptions) {
  test::TempDir dir;
  const std::string bam = write_case_bam(dir, {.seed = 5, .positions = 10});
  // Larger distance, then optical detection off: metrics must follow Picard's in both.
  expect_same_as_picard("coordinate.synthetic_pixel_distance_2500", bam,
                        " OPTICAL_DUPLICATE_PIXEL_DISTANCE=2500",
                        " --optical-duplicate-pixel-distance 2500");
  expect_same_as_picard("coordinate.synthetic_read_name_regex_null", bam, " READ_NAME_REGEX=null",
                        " --read-name-regex null");
}

// Groups `input` by read name with `group_command` ("sort -n" or "collate"), runs Picard with
// ASSUME_SORT_ORDER=queryname (or reads the golden `case_name`) and ours with `our_args` on the
// grouped file, and compares every record's flag (Picard's output put in coordinate order by
// samtools sort; ours is coordinate sorted, stably in input order, as samtools sorts) and the
// metrics.
void expect_same_as_picard_queryname(const std::string& case_name, const std::string& input,
                                     const std::string& group_command,
                                     const std::string& our_args) {
  test::TempDir dir;
  const std::string grouped = dir.file("grouped.bam");
  ASSERT_EQ(run_command("samtools " + group_command + " -o " + shell_quote(grouped) + " " +
                        shell_quote(input))
                .exit_code,
            0);
  const auto run_picard = [&](PicardVerdict& fresh) {
    const auto run = run_command("PicardCommandLine MarkDuplicates I=" + shell_quote(grouped) +
                                 " O=" + shell_quote(dir.file("picard.bam")) +
                                 " M=" + shell_quote(dir.file("picard.txt")) +
                                 " ASSUME_SORT_ORDER=queryname VALIDATION_STRINGENCY=SILENT");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    ASSERT_EQ(run_command("samtools sort -o " + shell_quote(dir.file("picard.sorted.bam")) + " " +
                          shell_quote(dir.file("picard.bam")))
                  .exit_code,
              0);
    fresh.table = flag_table(dir.file("picard.sorted.bam"));
    fresh.metrics = metrics_body(dir.file("picard.txt"));
  };
  PicardVerdict picard;
  ASSERT_NO_FATAL_FAILURE(test::picard_verdict(case_name, run_picard, picard));
  const auto ours = run_command(shell_quote(test::binary_path()) + " markdup --device cpu -I " +
                                shell_quote(grouped) + " -O " + shell_quote(dir.file("ours.bam")) +
                                " -M " + shell_quote(dir.file("ours.txt")) + our_args);
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  test::expect_same_verdict(picard, flag_table(dir.file("ours.bam")),
                            metrics_body(dir.file("ours.txt")), case_name);
}

TEST(MarkdupConformance, QuerynameGroupedInputMatchesPicardQuerynameMode) {
  for (const char* input :
       {"nfcore_chr22_40kb/test.paired_end.sorted.bam",
        "real_na12878_chr20_hg19/HG002_NIST_150bp_downsampled_30x.chr20.10_10p1mb.bam",
        "real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam"}) {
    expect_same_as_picard_queryname(data_case("queryname.", input), test::data_path(input),
                                    "sort -n", " --assume-sort-order queryname");
  }
  test::TempDir dir;
  for (const auto& [seed, templates] :
       std::vector<std::pair<unsigned, int>>{{11, 3000}, {12, 4000}}) {
    const std::string bam =
        write_case_bam(dir, {.seed = seed, .positions = 10, .templates = templates});
    const std::string name = "queryname.synthetic_seed" + std::to_string(seed);
    // samtools sort -n writes SO:queryname, which alone selects Picard's queryname semantics.
    expect_same_as_picard_queryname(name + "_sort_n", bam, "sort -n", "");
    // collate groups without sorting (SO is not queryname): the option is needed.
    expect_same_as_picard_queryname(name + "_collate", bam, "collate",
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
