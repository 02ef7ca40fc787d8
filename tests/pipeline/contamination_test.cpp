// --contamination-fraction-to-filter (-contamination), --contamination-fraction-per-sample-file and
// --use-filtered-read-map-for-annotations through `call` and `run` on real reads (NA12878,
// chr20:10.0-10.1 Mb): GATK's rules that the genotypes see the reads the filter leaves while the
// annotations see all of them, that a fraction of 1 leaves nothing to call, and that the per-sample
// file's line for the called sample wins.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "tests/pipeline/na12878_truth.hpp"
#include "tests/test_support.hpp"

namespace gpp::pipeline {
namespace {

using test::run_command;
using test::shell_quote;
namespace na12878 = test::na12878;

/// `call` of the set's reads with `args`: its exit code, and the records of `output` as
/// "POS REF ALT" -> "QUAL GT AD DP PL".
struct Calls {
  int exit_code = 0;
  std::string err;
  std::map<std::string, std::string> sites;
};

Calls call(const test::TempDir& dir, const std::string& args) {
  const std::string output = dir.file("out.vcf.gz");
  std::filesystem::remove(output);
  Calls calls;
  const auto r =
      run_command(shell_quote(test::binary_path()) + " call -I " + shell_quote(na12878::bam()) +
                  " -R " + shell_quote(na12878::reference()) + " -O " + shell_quote(output) +
                  " --device cpu --verbosity WARNING" + args);
  calls.exit_code = r.exit_code;
  calls.err = r.err;
  if (r.exit_code != 0) return calls;
  const auto query = run_command(
      "bcftools query -f '%POS %REF %ALT\\t%QUAL [%GT %AD %DP %PL]\\n' " + shell_quote(output));
  EXPECT_EQ(query.exit_code, 0) << query.err;
  std::istringstream lines(query.out);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t tab = line.find('\t');
    calls.sites[line.substr(0, tab)] = line.substr(tab + 1);
  }
  return calls;
}

// "QUAL GT AD DP PL" -> its field `k`.
std::string field(const std::string& values, int k) {
  std::istringstream words(values);
  std::string word;
  for (int i = 0; i <= k; ++i) words >> word;
  return word;
}

int depth(const std::string& values) { return std::stoi(field(values, 3)); }

TEST(Contamination, GenotypesSeeTheReadsLeftAndAnnotationsAllOfThem) {
  test::TempDir dir;
  const Calls clean = call(dir, "");
  ASSERT_EQ(clean.exit_code, 0) << clean.err;
  ASSERT_GT(clean.sites.size(), 200u);
  EXPECT_EQ(call(dir, " --contamination-fraction-to-filter 0").sites, clean.sites);

  const Calls filtered = call(dir, " -contamination 0.1");
  ASSERT_EQ(filtered.exit_code, 0) << filtered.err;
  int shared = 0, genotypes_moved = 0;
  for (const auto& [site, values] : filtered.sites) {
    const auto found = clean.sites.find(site);
    if (found == clean.sites.end()) continue;
    ++shared;
    // AD and DP: every read, as without the filter.
    EXPECT_EQ(field(values, 2), field(found->second, 2)) << site;
    EXPECT_EQ(depth(values), depth(found->second)) << site;
    genotypes_moved += field(values, 4) != field(found->second, 4);
  }
  EXPECT_GT(shared, 150);
  EXPECT_GT(genotypes_moved, shared / 3);  // a tenth of the informative reads gone (117 of 246)

  // The annotations of the reads left: no site deeper than without the filter, most shallower.
  const Calls annotated = call(dir, " -contamination 0.1 --use-filtered-read-map-for-annotations");
  ASSERT_EQ(annotated.exit_code, 0) << annotated.err;
  int shallower = 0;
  for (const auto& [site, values] : annotated.sites) {
    const auto found = filtered.sites.find(site);
    ASSERT_NE(found, filtered.sites.end()) << site;  // the same genotypes, so the same sites
    EXPECT_EQ(field(values, 4), field(found->second, 4)) << site;
    EXPECT_LE(depth(values), depth(found->second)) << site;
    shallower += depth(values) < depth(found->second);
  }
  EXPECT_EQ(annotated.sites.size(), filtered.sites.size());
  EXPECT_GT(shallower, static_cast<int>(annotated.sites.size()) / 3);

  // Every read removed: nothing to call.
  const Calls everything = call(dir, " -contamination 1");
  ASSERT_EQ(everything.exit_code, 0) << everything.err;
  EXPECT_TRUE(everything.sites.empty());

  // The same records at any thread count.
  EXPECT_EQ(call(dir, " -contamination 0.1 --threads 1").sites, filtered.sites);
}

TEST(Contamination, TheCalledSamplesLineOfTheFileWins) {
  test::TempDir dir;
  const std::string file = dir.file("contamination.txt");
  std::ofstream(file) << "OTHER\t1.0\nNA12878\t0.1\n";
  const Calls from_file = call(dir, " -contamination-file " + shell_quote(file));
  ASSERT_EQ(from_file.exit_code, 0) << from_file.err;
  EXPECT_EQ(from_file.sites, call(dir, " -contamination 0.1").sites);
  // A sample without a line takes --contamination-fraction-to-filter.
  std::ofstream(file) << "OTHER\t1.0\n";
  EXPECT_EQ(call(dir, " --contamination-fraction-per-sample-file " + shell_quote(file) +
                          " -contamination 0.1")
                .sites,
            from_file.sites);
  // A malformed file: a one-line error naming it, no output.
  std::ofstream(file) << "NA12878\t2\n";
  const Calls bad = call(dir, " -contamination-file " + shell_quote(file));
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find(file + " line 1: the fraction 2 is outside 0..1"), std::string::npos)
      << bad.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.vcf.gz")));
}

TEST(Contamination, RunFiltersAsCall) {
  test::TempDir dir;
  const Calls called = call(dir, " -contamination 0.1");
  ASSERT_EQ(called.exit_code, 0) << called.err;
  const auto run = run_command(
      shell_quote(test::binary_path()) + " run " + shell_quote(na12878::bam()) + " -R " +
      shell_quote(na12878::reference()) + " -o " + shell_quote(dir.file("run")) +
      " --prefix r --device cpu --verbosity WARNING -contamination 0.1");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // run marks duplicates again (this BAM's are Picard's): call its own BAM to compare.
  const auto again = run_command(
      shell_quote(test::binary_path()) + " call -I " + shell_quote(dir.file("run/r.md.bam")) +
      " -R " + shell_quote(na12878::reference()) + " -O " + shell_quote(dir.file("again.vcf.gz")) +
      " --device cpu --verbosity WARNING -contamination 0.1");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const auto records = [](const std::string& vcf) {
    return run_command("bcftools view -H " + shell_quote(vcf) + " | cut -f 1-10").out;
  };
  EXPECT_EQ(records(dir.file("run/r.vcf.gz")), records(dir.file("again.vcf.gz")));
  EXPECT_GT(records(dir.file("run/r.vcf.gz")).size(), 1000u);
}

}  // namespace
}  // namespace gpp::pipeline
