// Splitting a line of text into its fields.
#pragma once

#include <string_view>
#include <vector>

namespace gpp {

/// The fields of `line` between `separator`s, empty ones included ("a\t\tb" -> a, "", b; "" -> "").
/// @code
///   split_fields("chr1\t10\t20", '\t') == {"chr1", "10", "20"}
/// @endcode
inline std::vector<std::string_view> split_fields(std::string_view line, char separator) {
  std::vector<std::string_view> fields;
  for (std::size_t from = 0;;) {
    const std::size_t end = line.find(separator, from);
    fields.push_back(line.substr(from, end == std::string_view::npos ? end : end - from));
    if (end == std::string_view::npos) return fields;
    from = end + 1;
  }
}

}  // namespace gpp
