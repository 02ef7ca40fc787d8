// Test helper: SAM CIGAR text ("2M2I4M", zero-length elements allowed as in htsjdk's
// TextCigarCodec) to BAM-packed elements, and back.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/cigar.hpp"

namespace gpp::stages::call::test {

inline std::vector<std::uint32_t> cigar_of(std::string_view text) {
  std::vector<std::uint32_t> cigar;
  std::uint32_t length = 0;
  bool has_digits = false;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      length = length * 10 + static_cast<std::uint32_t>(c - '0');
      has_digits = true;
      continue;
    }
    const std::string_view ops = "MIDNSHP=X";
    const std::size_t op = ops.find(c);
    if (op == std::string_view::npos || !has_digits) throw std::invalid_argument("bad CIGAR");
    cigar.push_back(cigar_element(static_cast<CigarOp>(op), length));
    length = 0;
    has_digits = false;
  }
  if (has_digits) throw std::invalid_argument("bad CIGAR");
  return cigar;
}

inline std::string text_of(const std::vector<std::uint32_t>& cigar) {
  return cigar.empty() ? std::string() : cigar_to_string(cigar);
}

}  // namespace gpp::stages::call::test
