// The fields of a line of text, and a piece of one quoted in a message.
#pragma once

#include <cstdio>
#include <string>
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

/// `text` as a message may quote it: bytes outside printable ASCII as \xNN (a binary file's bytes
/// would garble the terminal), at most `most` bytes of it, then "...".
/// @code
///   printable("AB\x1f\x8b", 60) == "AB\\x1f\\x8b"
/// @endcode
inline std::string printable(std::string_view text, std::size_t most = 60) {
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < most; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      out += escaped;
    }
  }
  if (text.size() > most) out += "...";
  return out;
}

}  // namespace gpp
