// The command line's rewriting (GATK's short names, Parabricks' spellings and thread counts) and
// the --logfile check, on argument lists as a shell would pass them.
#include "pipeline/command_line.hpp"

#include <gtest/gtest.h>

#include <CLI/CLI.hpp>

#include "core/error.hpp"
#include "tests/test_support.hpp"

namespace gpp::pipeline {
namespace {

using Args = std::vector<std::string>;

TEST(CommandLine, GatkShortNamesAndCallerOptions) {
  EXPECT_EQ(
      normalized_arguments({"gpu-pipeline", "call", "-ERC", "GVCF", "-ALIAS", "s",
                            "--haplotypecaller-options", "-min-pruning 3 -stand-call-conf 10"}),
      (Args{"gpu-pipeline", "call", "--emit-ref-confidence", "GVCF", "--sample-name", "s",
            "--min-pruning", "3", "--standard-min-confidence-threshold-for-calling", "10"}));
  EXPECT_EQ(normalized_arguments({"p", "call", "--haplotypecaller-options=--min-pruning 4"}),
            (Args{"p", "call", "--min-pruning", "4"}));
}

TEST(CommandLine, ThreadOptionsBecomeTheLargestThreadCount) {
  EXPECT_EQ(normalized_arguments({"p", "markdup", "--num-worker-threads", "4",
                                  "--num-zip-threads=12", "--num-threads", "8"}),
            (Args{"p", "markdup", "--threads", "12"}));
  EXPECT_EQ(normalized_arguments({"p", "call", "--native-pair-hmm-threads", "4", "--threads", "2"}),
            (Args{"p", "call", "--threads", "2"}));
  EXPECT_EQ(normalized_arguments({"p", "call", "--num-htvc-threads=6", "--threads=3"}),
            (Args{"p", "call", "--threads=3"}));
  EXPECT_THROW(normalized_arguments({"p", "call", "--num-threads", "auto"}), CLI::ValidationError);
  EXPECT_THROW(normalized_arguments({"p", "call", "--num-threads=-2"}), CLI::ValidationError);
  // A missing value is left for the parser to report.
  EXPECT_EQ(normalized_arguments({"p", "call", "--num-threads"}),
            (Args{"p", "call", "--num-threads"}));
}

TEST(CommandLine, MarkdupMemoryAndSortOrder) {
  EXPECT_EQ(normalized_arguments({"p", "markdup", "--mem-limit", "16"}),
            (Args{"p", "markdup", "--max-memory", "16G"}));
  EXPECT_EQ(normalized_arguments({"p", "markdup", "--mem-limit=512M"}),
            (Args{"p", "markdup", "--max-memory", "512M"}));
  EXPECT_EQ(normalized_arguments({"p", "markdup", "--mem-limit", "16", "--max-memory", "2G"}),
            (Args{"p", "markdup", "--max-memory", "2G"}));
  EXPECT_EQ(normalized_arguments({"p", "markdup", "--markdups-assume-sortorder-queryname"}),
            (Args{"p", "markdup", "--assume-sort-order", "queryname"}));
}

TEST(CommandLine, LogFileMustNameNoOtherArgument) {
  test::TempDir dir;
  const std::string bam = dir.file("in.bam");
  EXPECT_NO_THROW(check_log_file_is_no_other_argument(
      dir.file("run.log"), {"p", "call", "--in-bam", bam, "--logfile", dir.file("run.log")}));
  EXPECT_NO_THROW(check_log_file_is_no_other_argument(
      dir.file("run.log"), {"p", "call", "--in-bam", bam, "--logfile=" + dir.file("run.log")}));
  for (const Args& args : {
           Args{"p", "call", "--in-bam=" + bam, "--logfile=" + bam},
           Args{"p", "call", "--in-bam", bam, "--logfile", bam},
           Args{"p", "call", "--in-bam", dir.path().string() + "/./in.bam", "--logfile", bam},
           Args{"p", "call", "--out-variants=" + bam, "--logfile", bam},
       }) {
    try {
      check_log_file_is_no_other_argument(bam, args);
      ADD_FAILURE() << args[2];
    } catch (const Error& error) {
      EXPECT_EQ(
          std::string(error.what()),
          "--logfile " + bam + ": also given as another argument; the log would overwrite it");
    }
  }
}

}  // namespace
}  // namespace gpp::pipeline
