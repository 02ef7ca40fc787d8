// The pairs table of `gpu-pipeline sw` (see sw_pairs.hpp).
#include "pipeline/sw_pairs.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <limits>

#include "core/error.hpp"
#include "core/fields.hpp"

namespace gpp::pipeline {

namespace {

std::int32_t parse_score(const std::string& text, const char* what, const std::string& where) {
  std::int32_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) {
    throw Error(where + ": " + what + " '" + printable(text) + "' is not a 32-bit integer");
  }
  return value;
}

// GATK's SWParameters: a match scores >= 0, the penalties are <= 0. And every score the alignment
// of a pair of `length` bases (both together) can reach stays within 32 bits.
void check_scores(const kernels::SwParameters& scores, std::size_t length,
                  const std::string& where) {
  if (scores.match < 0 || scores.mismatch > 0 || scores.gap_open > 0 || scores.gap_extend > 0) {
    throw Error(where +
                ": the match score must be >= 0 and the mismatch, gap_open and gap_extend "
                "penalties <= 0 (GATK's SWParameters)");
  }
  std::int64_t largest = 0;
  for (const std::int32_t score :
       {scores.match, scores.mismatch, scores.gap_open, scores.gap_extend}) {
    largest = std::max(largest, std::abs(static_cast<std::int64_t>(score)));
  }
  if (largest * static_cast<std::int64_t>(length + 2) > std::numeric_limits<std::int32_t>::max()) {
    throw Error(where + ": scores this large overflow the 32-bit alignment scores of " +
                std::to_string(length) + " bases");
  }
}

}  // namespace

std::vector<SwPair> parse_sw_pairs(std::istream& in, const std::string& name) {
  std::vector<SwPair> rows;
  std::string line;
  std::vector<std::string> fields;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    fields.clear();
    for (std::size_t begin = 0;;) {
      const std::size_t tab = line.find('\t', begin);
      fields.push_back(
          line.substr(begin, tab == std::string::npos ? std::string::npos : tab - begin));
      if (tab == std::string::npos) break;
      begin = tab + 1;
    }
    const std::string where = name + ": line " + std::to_string(number);
    if (fields.size() != 7) {
      throw Error(where +
                  ": expected 7 tab-separated fields (ref alt match mismatch gap_open "
                  "gap_extend mode), found " +
                  std::to_string(fields.size()));
    }
    SwPair row;
    for (int k = 0; k < 2; ++k) {
      if (fields[k].empty())
        throw Error(where + ": empty sequence field (write '-' for an empty sequence)");
      (k == 0 ? row.ref : row.alt) = fields[k] == "-" ? std::string() : fields[k];
    }
    row.model.parameters = {
        parse_score(fields[2], "match", where), parse_score(fields[3], "mismatch", where),
        parse_score(fields[4], "gap_open", where), parse_score(fields[5], "gap_extend", where)};
    check_scores(row.model.parameters, row.ref.size() + row.alt.size(), where);
    if (fields[6] == "HAPLOTYPE_TO_REFERENCE") {
      row.model.haplotype_to_reference = true;
    } else if (const auto strategy = kernels::parse_overhang_strategy(fields[6])) {
      row.model.strategy = *strategy;
    } else {
      throw Error(where + ": unknown mode '" + printable(fields[6]) +
                  "' (SOFTCLIP, INDEL, LEADING_INDEL, IGNORE or HAPLOTYPE_TO_REFERENCE)");
    }
    rows.push_back(std::move(row));
  }
  if (in.bad()) throw Error(name + ": read error");
  return rows;
}

}  // namespace gpp::pipeline
