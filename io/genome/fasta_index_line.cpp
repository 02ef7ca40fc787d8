#include "io/genome/fasta_index_line.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <vector>

#include "core/fields.hpp"

namespace gpp::io {

std::optional<FastaIndexEntry> parse_fasta_index_line(std::string_view line) {
  const std::vector<std::string_view> fields = split_fields(line, '\t');
  std::int64_t value[5] = {};
  bool numbers = fields.size() == 5 || fields.size() == 6;
  for (std::size_t k = 0; numbers && k + 1 < fields.size(); ++k) {
    const std::string_view f = fields[k + 1];
    const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), value[k]);
    numbers = ec == std::errc() && end == f.data() + f.size() && value[k] >= 0;
  }
  // HTSlib keeps bases and bytes per line as int: larger values wrap (to 0: a division by 0).
  constexpr std::int64_t kIntMax = std::numeric_limits<std::int32_t>::max();
  const bool lines_ok = value[2] <= kIntMax && value[3] <= kIntMax &&
                        (value[0] == 0 || (value[2] > 0 && value[3] >= value[2]));
  // HTSlib reads the line as C text: a NUL byte in it hides the fields after it; and its name
  // ends at the first white space of any kind (a vertical tab shifts every field after it).
  const bool text_ok = line.find('\0') == std::string_view::npos &&
                       std::none_of(fields[0].begin(), fields[0].end(), [](char c) {
                         return std::isspace(static_cast<unsigned char>(c)) != 0;
                       });
  if (!numbers || fields[0].empty() || !lines_ok || !text_ok) return std::nullopt;
  return FastaIndexEntry{fields[0], value[0], value[1], value[2], value[3]};
}

}  // namespace gpp::io
