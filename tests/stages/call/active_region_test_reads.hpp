// Test helpers for the active-region tests: CallReads from CIGAR text, as GATK's
// ArtificialReadUtils.createArtificialRead builds them.
#pragma once

#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

#include "core/cigar.hpp"
#include "core/error.hpp"
#include "stages/call/call_read.hpp"

namespace gpp::stages::call::test {

/// "10M2I5S" -> BAM-packed elements.
inline std::vector<std::uint32_t> parse_cigar(const std::string& text) {
  static const std::string kOps = "MIDNSHP=X";
  std::vector<std::uint32_t> cigar;
  std::uint32_t length = 0;
  for (char c : text) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      length = length * 10 + static_cast<std::uint32_t>(c - '0');
      continue;
    }
    const auto op = kOps.find(c);
    if (op == std::string::npos) throw Error("bad CIGAR " + text);
    cigar.push_back(cigar_element(static_cast<CigarOp>(op), length));
    length = 0;
  }
  return cigar;
}

/// A mapped, unpaired read at 0-based `start`; bases default to A, qualities to `qual`.
inline CallRead make_read(const std::string& name, std::int64_t start, const std::string& cigar,
                          std::string bases = "", std::uint8_t qual = 30) {
  CallRead read;
  read.name = name;
  read.contig = 0;
  read.start = start;
  read.cigar = parse_cigar(cigar);
  const auto length = cigar_query_length(read.cigar);
  if (bases.empty()) bases.assign(length, 'A');
  read.bases = bases;
  read.quals.assign(read.bases.size(), qual);
  read.mapping_quality = 60;
  return read;
}

}  // namespace gpp::stages::call::test
