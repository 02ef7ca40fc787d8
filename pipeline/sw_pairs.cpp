// The pairs table of `gpu-pipeline sw` (see sw_pairs.hpp).
#include "pipeline/sw_pairs.hpp"

#include <charconv>
#include <cstdint>

#include "core/error.hpp"

namespace gpp::pipeline {

namespace {

std::int32_t parse_score(const std::string& text, const char* what, const std::string& where) {
  std::int32_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) {
    throw Error(where + ": " + what + " '" + text + "' is not a 32-bit integer");
  }
  return value;
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
    if (fields[6] == "HAPLOTYPE_TO_REFERENCE") {
      row.model.haplotype_to_reference = true;
    } else if (const auto strategy = kernels::parse_overhang_strategy(fields[6])) {
      row.model.strategy = *strategy;
    } else {
      throw Error(where + ": unknown mode '" + fields[6] +
                  "' (SOFTCLIP, INDEL, LEADING_INDEL, IGNORE or HAPLOTYPE_TO_REFERENCE)");
    }
    rows.push_back(std::move(row));
  }
  if (in.bad()) throw Error(name + ": read error");
  return rows;
}

}  // namespace gpp::pipeline
