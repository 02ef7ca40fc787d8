// Tile and x/y position of a read's cluster, parsed from its name as Picard's ReadNameParser does
// (Picard 2.27: the default parser takes the last three ':'-separated fields of a name with 5 or 7
// fields; a custom regex needs three capture groups and must match the whole name).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace gpp::stages::markdup {

/// A parsed location. Picard 2.27 stores tile, x and y in 16-bit fields, so large x/y values are
/// truncated to their low 16 bits (two's complement), which we reproduce.
struct ClusterLocation {
  std::int16_t tile = -1;
  std::int16_t x = -1;
  std::int16_t y = -1;
};

class ReadNameParser {
 public:
  /// `regex`: empty for Picard's default parsing, "null" to disable, otherwise a regular
  /// expression with three capture groups (tile, x, y).
  explicit ReadNameParser(const std::string& regex);
  ~ReadNameParser();
  ReadNameParser(ReadNameParser&&) noexcept;

  bool enabled() const { return mode_ != Mode::kDisabled; }

  /// The location in `name`, or nothing when the name does not parse.
  std::optional<ClusterLocation> parse(std::string_view name) const;

 private:
  enum class Mode { kDefault, kRegex, kDisabled };
  Mode mode_ = Mode::kDefault;
  struct Regex;
  std::unique_ptr<Regex> regex_;
};

}  // namespace gpp::stages::markdup
