#include "tests/stages/markdup/picard_peer.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "tests/test_support.hpp"

namespace gpp::test {

namespace {

constexpr const char* kRegenerate = "regenerate with tests/data/picard_golden/make_goldens.sh";
constexpr int kDuplicateFlag = 0x400;

std::string golden_path(const std::string& case_name, const std::string& suffix) {
  return data_path("picard_golden/" + case_name + suffix);
}

// Both Java and the Debian launcher: a host without Java may still have neither.
bool picard_installed() {
  static const bool installed =
      run_command("command -v java && command -v PicardCommandLine").exit_code == 0;
  return installed;
}

bool read_gzip(const std::string& path, std::string& text) {
  gzFile in = gzopen(path.c_str(), "rb");
  if (in == nullptr) return false;
  text.clear();
  std::vector<char> buffer(1 << 16);
  int n = 0;
  while ((n = gzread(in, buffer.data(), static_cast<unsigned>(buffer.size()))) > 0)
    text.append(buffer.data(), static_cast<std::size_t>(n));
  return gzclose(in) == Z_OK && n == 0;
}

// zlib's gzip header carries no name and no time, so equal texts give equal files.
bool write_gzip(const std::string& path, const std::string& text) {
  gzFile out = gzopen(path.c_str(), "wb9");
  if (out == nullptr) return false;
  const bool written =
      text.empty() || gzwrite(out, text.data(), static_cast<unsigned>(text.size())) > 0;
  return gzclose(out) == Z_OK && written;
}

// "line N: expected '...', got '...'" for the first line where the texts differ; empty when equal.
std::string first_difference(const std::string& expected, const std::string& actual) {
  if (expected == actual) return "";
  const auto e = test::lines_of(expected);
  const auto a = test::lines_of(actual);
  for (std::size_t k = 0; k < std::max(e.size(), a.size()); ++k) {
    const std::string want = k < e.size() ? e[k] : "(end)";
    const std::string got = k < a.size() ? a[k] : "(end)";
    if (want != got)
      return "line " + std::to_string(k + 1) + ": expected '" + want + "', got '" + got + "'";
  }
  return "the texts differ in their final newline";
}

}  // namespace

std::string flag_table(const std::string& bam) {
  const auto r = run_command("samtools view " + shell_quote(bam) + " | cut -f 1-4");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

std::string metrics_body(const std::string& path) {
  std::istringstream in(read_file(path));
  std::string body;
  int n = 0;
  for (std::string line; std::getline(in, line); ++n) {
    if (n >= 5) body += line + "\n";
  }
  return body;
}

std::string table_summary(const std::string& table) {
  TempDir dir;
  std::ofstream(dir.file("table"), std::ios::binary) << table;
  const auto sha = run_command("sha256sum " + shell_quote(dir.file("table")));
  EXPECT_EQ(sha.exit_code, 0) << sha.err;
  std::string duplicates;
  std::size_t records = 0;
  for (const std::string& row : test::lines_of(table)) {
    ++records;
    const std::size_t flag_start = row.find('\t') + 1;
    if (flag_start == 0) continue;  // no FLAG column: the sha256 still tells the difference
    if (std::atoi(row.c_str() + flag_start) & kDuplicateFlag)
      duplicates += std::to_string(records) + "\t" + row + "\n";
  }
  return "# " + std::to_string(records) + " records, sha256 " + sha.out.substr(0, 64) + "\n" +
         duplicates;
}

void picard_verdict(const std::string& case_name,
                    const std::function<void(PicardVerdict&)>& run_picard, PicardVerdict& verdict) {
  const char* mode_variable = std::getenv("GPP_PICARD");
  const std::string mode = mode_variable != nullptr ? mode_variable : "";
  ASSERT_TRUE(mode.empty() || mode == "golden" || mode == "update")
      << "GPP_PICARD must be golden, update or unset, not '" << mode << "'";
  const std::string duplicates_file = golden_path(case_name, ".duplicates.tsv.gz");
  const std::string metrics_file = golden_path(case_name, ".metrics.txt");
  const bool run = mode == "update" || (mode.empty() && picard_installed());
  if (!run) {
    if (mode.empty() && std::getenv("GPP_REQUIRE_PEERS") != nullptr) {
      FAIL() << "Picard missing (java, PicardCommandLine); GPP_PICARD=golden compares with the "
                "stored goldens instead";
    }
    verdict = {};
    ASSERT_TRUE(read_gzip(duplicates_file, verdict.summary)) << "cannot read " << duplicates_file;
    verdict.metrics = read_file(metrics_file);
    ASSERT_FALSE(verdict.metrics.empty()) << "cannot read " << metrics_file;
    return;
  }
  PicardVerdict fresh;
  run_picard(fresh);
  if (testing::Test::HasFatalFailure()) return;
  ASSERT_FALSE(fresh.table.empty()) << case_name << ": Picard's output has no records";
  fresh.summary = table_summary(fresh.table);
  if (mode == "update") {
    ASSERT_TRUE(write_gzip(duplicates_file, fresh.summary)) << "cannot write " << duplicates_file;
    std::ofstream(metrics_file, std::ios::binary) << fresh.metrics;
    ASSERT_EQ(read_file(metrics_file), fresh.metrics) << "cannot write " << metrics_file;
  } else {
    std::string golden;
    if (!read_gzip(duplicates_file, golden)) {
      ADD_FAILURE() << "no golden " << duplicates_file << "; " << kRegenerate;
    } else {
      const std::string difference = first_difference(golden, fresh.summary);
      EXPECT_TRUE(difference.empty())
          << duplicates_file << " is not Picard's output (" << difference << "); " << kRegenerate;
    }
    EXPECT_EQ(read_file(metrics_file), fresh.metrics)
        << metrics_file << " is not Picard's metrics; " << kRegenerate;
  }
  verdict = std::move(fresh);
}

void expect_same_verdict(const PicardVerdict& picard, const std::string& our_table,
                         const std::string& our_metrics, const std::string& label) {
  if (!picard.table.empty()) {
    const std::string difference = first_difference(picard.table, our_table);
    EXPECT_TRUE(difference.empty())
        << label << ": flags or order differ from Picard: " << difference;
  } else {
    const std::string difference = first_difference(picard.summary, table_summary(our_table));
    EXPECT_TRUE(difference.empty())
        << label << ": flags or order differ from Picard's golden (a first line that differs "
        << "alone means names, positions or order): " << difference;
  }
  EXPECT_EQ(our_metrics, picard.metrics) << label;
}

}  // namespace gpp::test
