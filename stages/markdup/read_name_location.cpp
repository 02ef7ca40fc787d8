#include "stages/markdup/read_name_location.hpp"

#include <regex>

#include "core/error.hpp"

namespace gpp::stages::markdup {

struct ReadNameParser::Regex {
  std::regex pattern;
};

namespace {

// Picard's rapidParseInt: optional '-', then digits up to the first non-digit, with Java int
// wrap-around; false when there is no digit.
bool rapid_parse_int(std::string_view text, std::int32_t& value) {
  std::size_t i = 0;
  bool negative = false;
  if (!text.empty() && text[0] == '-') {
    negative = true;
    i = 1;
  }
  std::uint32_t v = 0;
  bool digits = false;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    v = v * 10u + static_cast<std::uint32_t>(text[i] - '0');
    digits = true;
  }
  if (!digits) return false;
  value = static_cast<std::int32_t>(negative ? 0u - v : v);
  return true;
}

// Picard's getLastThreeFields: the last three ':'-separated fields as integers and the number of
// fields, or -1 fields when a field fails to parse (a NumberFormatException in Picard).
int last_three_fields(std::string_view name, std::int32_t fields[3]) {
  int tokens_index = 2;
  int count = 0;
  std::size_t end = name.size();
  long i = static_cast<long>(name.size()) - 1;
  for (; i >= 0 && tokens_index >= 0; --i) {
    if (name[i] == ':' || i == 0) {
      ++count;
      const std::size_t from = i == 0 ? 0 : static_cast<std::size_t>(i) + 1;
      if (!rapid_parse_int(name.substr(from, end - from), fields[tokens_index])) return -1;
      --tokens_index;
      end = static_cast<std::size_t>(i);
    }
  }
  for (; i >= 0; --i) {
    if (name[i] == ':' || i == 0) ++count;
  }
  return count < 3 ? -1 : count;
}

}  // namespace

ReadNameParser::ReadNameParser(const std::string& regex) {
  if (regex.empty()) {
    mode_ = Mode::kDefault;
  } else if (regex == "null") {
    mode_ = Mode::kDisabled;
  } else {
    mode_ = Mode::kRegex;
    try {
      regex_ = std::make_unique<Regex>(Regex{std::regex(regex, std::regex::ECMAScript)});
    } catch (const std::regex_error& e) {
      throw Error("--read-name-regex: '" + regex + "' is not a valid regular expression (" +
                  e.what() + ")");
    }
    if (regex_->pattern.mark_count() < 3) {
      throw Error("--read-name-regex: '" + regex + "' needs three capture groups (tile, x, y)");
    }
  }
}

ReadNameParser::~ReadNameParser() = default;
ReadNameParser::ReadNameParser(ReadNameParser&&) noexcept = default;

std::optional<ClusterLocation> ReadNameParser::parse(std::string_view name) const {
  std::int32_t tile = 0;
  std::int32_t x = 0;
  std::int32_t y = 0;
  if (mode_ == Mode::kDisabled) return std::nullopt;
  if (mode_ == Mode::kDefault) {
    std::int32_t fields[3] = {-1, -1, -1};
    const int count = last_three_fields(name, fields);
    if (count != 5 && count != 7) return std::nullopt;
    tile = fields[0];
    x = fields[1];
    y = fields[2];
  } else {
    std::match_results<std::string_view::const_iterator> m;
    if (!std::regex_match(name.begin(), name.end(), m, regex_->pattern)) return std::nullopt;
    // Java Integer.parseInt: the whole group must be a (signed) decimal integer.
    auto parse_group = [&](int g, std::int32_t& out) {
      const std::string text = m[g].str();
      std::size_t used = 0;
      try {
        const long long v = std::stoll(text, &used, 10);
        if (used != text.size() || v < INT32_MIN || v > INT32_MAX || text[0] == ' ') return false;
        out = static_cast<std::int32_t>(v);
        return true;
      } catch (...) {
        return false;
      }
    };
    if (!parse_group(1, tile) || !parse_group(2, x) || !parse_group(3, y)) return std::nullopt;
  }
  return ClusterLocation{static_cast<std::int16_t>(tile), static_cast<std::int16_t>(x),
                         static_cast<std::int16_t>(y)};
}

}  // namespace gpp::stages::markdup
