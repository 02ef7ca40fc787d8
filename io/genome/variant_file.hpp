// An opened VCF or BCF (plain or bgzipped), with its index when it has one: what KnownSites and
// KnownVariants read from. io/ internal (it holds HTSlib handles).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "io/bam/hts_handles.hpp"

namespace gpp::io::detail {

struct VariantFile {
  hts::File file;
  hts::VcfHeader header;  ///< BCF only: text VCF lines are read by hand (see known_sites.cpp)
  hts::Index bcf_index;   ///< BCF with a .csi
  hts::Tabix tabix;       ///< bgzipped VCF with a .tbi or .csi
  bool is_bcf = false;

  bool indexed() const { return bcf_index || tabix; }
};

/**
 * @brief Opens `path` as a VCF or BCF and loads its index if there is one.
 * @throws gpp::Error naming the file when it is missing, unreadable, not VCF/BCF, a bgzipped file
 *         without its end-of-file block, or a BCF whose header cannot be read
 */
VariantFile open_variant_file(const std::string& path);

/**
 * @brief Calls `record(line)` for each data line of a text VCF read from its start (header lines
 *        and empty lines skipped).
 * @param record returns false for a malformed line
 * @throws gpp::Error naming `path` and the line number of a malformed line, or for truncated or
 *         corrupt data
 */
void for_each_vcf_line(htsFile* file, const std::string& path,
                       const std::function<bool(std::string_view line)>& record);

/// The first `fields.size()` tab-separated fields of a VCF data line (fewer when the line has
/// fewer); returns how many were found.
std::size_t split_vcf_fields(std::string_view line, std::span<std::string_view> fields);

/// POS as htsjdk reads it: a Java int of at least 1; nothing when the text is not one.
std::optional<std::int64_t> parse_vcf_position(std::string_view text);

}  // namespace gpp::io::detail
