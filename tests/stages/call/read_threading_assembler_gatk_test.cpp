// Conformance of the local assembler with GATK itself: 20 regions whose graphs, k-best paths and
// haplotype lists were produced by GATK's own assembly classes (provenance in
// gatk_assembly_cases.inc). Everything must match exactly except the last bits of the scores:
// GATK's Math.log10 (the HotSpot intrinsic) and glibc's log10 differ by one ulp on some inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "stages/call/read_threading_assembler.hpp"
#include "tests/stages/call/gatk_assembly_cases.inc"

namespace gpp::stages::call {
namespace {

struct ParsedCase {
  std::string name;
  std::string ref;
  std::vector<std::string> bases;
  std::vector<std::vector<std::uint8_t>> quals;
  std::vector<std::uint32_t> samples;
};

ParsedCase parse_input(const std::string& text) {
  ParsedCase c;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string tag;
    f >> tag;
    if (tag == "CASE") {
      f >> c.name;
    } else if (tag == "REF") {
      f >> c.ref;
    } else if (tag == "READ") {
      std::string b, q, s;
      f >> b >> q >> s;
      c.bases.push_back(b);
      std::vector<std::uint8_t> quals;
      for (char ch : q) quals.push_back(static_cast<std::uint8_t>(ch - 33));
      c.quals.push_back(std::move(quals));
      c.samples.push_back(static_cast<std::uint32_t>(std::stoul(s.substr(1))));
    }
  }
  return c;
}

std::string score_text(double score) {
  if (std::isnan(score)) return "NaN";
  std::ostringstream s;
  s << std::hex << std::bit_cast<std::uint64_t>(score);
  return s.str();
}

/// Our result in the expected file's format.
std::vector<std::string> run_case(const ParsedCase& c) {
  std::vector<AssemblyRead> reads;
  for (std::size_t i = 0; i < c.bases.size(); ++i) {
    reads.push_back(
        AssemblyRead{c.bases[i], c.quals[i], static_cast<std::uint32_t>(i), c.samples[i]});
  }
  const LocalAssemblyResult result = run_local_assembly(LocalAssemblyInput{c.ref, 0, reads});
  std::vector<std::string> lines{"CASE " + c.name};
  for (const KmerGraphPaths& graph : result.graphs) {
    lines.push_back("GRAPH " + std::to_string(graph.kmer_size) + " " +
                    std::to_string(graph.best_paths.size()));
    for (const KBestHaplotype& p : graph.best_paths) {
      lines.push_back("  " + score_text(p.score) + " " + p.bases);
    }
  }
  for (const AssembledHaplotype& h : result.haplotypes) {
    lines.push_back("HAP " + h.bases + (h.is_reference ? " true " : " false ") +
                    score_text(h.score) + " " + std::to_string(h.kmer_size));
  }
  return lines;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

double score_of(const std::string& bits) {
  return bits == "NaN" ? std::nan("") : std::bit_cast<double>(std::stoull(bits, nullptr, 16));
}

/// Equal, except that score fields may differ by a relative 1e-12.
void expect_same_line(const std::string& expected, const std::string& actual) {
  std::istringstream e(expected), a(actual);
  std::vector<std::string> ef, af;
  for (std::string w; e >> w;) ef.push_back(w);
  for (std::string w; a >> w;) af.push_back(w);
  ASSERT_EQ(ef.size(), af.size()) << expected << "\n" << actual;
  const bool path_line = expected.rfind("  ", 0) == 0;
  for (std::size_t i = 0; i < ef.size(); ++i) {
    const bool score_field = (path_line && i == 0) || (ef[0] == "HAP" && i == 3);
    if (!score_field) {
      EXPECT_EQ(ef[i], af[i]) << expected;
      continue;
    }
    const double es = score_of(ef[i]);
    const double as = score_of(af[i]);
    if (std::isnan(es)) {
      EXPECT_TRUE(std::isnan(as)) << expected;
    } else {
      EXPECT_NEAR(as, es, 1e-12 * std::max(1.0, std::abs(es))) << expected;
    }
  }
}

TEST(ReadThreadingAssemblerGatk, MatchesGatkOnRandomRegions) {
  int compared_lines = 0;
  for (const auto& gatk_case : gatk_assembly_cases::kCases) {
    const ParsedCase c = parse_input(gatk_case.input);
    SCOPED_TRACE(c.name);
    const std::vector<std::string> expected = split_lines(gatk_case.expected);
    const std::vector<std::string> actual = run_case(c);
    ASSERT_EQ(actual.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
      expect_same_line(expected[i], actual[i]);
      ++compared_lines;
    }
  }
  EXPECT_EQ(std::size(gatk_assembly_cases::kCases), 20u);
  EXPECT_GT(compared_lines, 150);
}

}  // namespace
}  // namespace gpp::stages::call
