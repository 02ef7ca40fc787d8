// BAM aux fields as GATK's htsjdk writes them, and the Java hash codes GATK puts in them (for a
// haplotype BAM, haplotype_bam.hpp):
//  - an integer tag takes the smallest BAM type that holds its value (BinaryTagCodec), so a
//    record's integer fields are re-encoded that way whatever type they were read with;
//  - the attributes are kept sorted by their binary tag, so a record's tags are written in that
//    order whatever order they were read in (as_htsjdk_writes); set_integer_tag and
//    set_string_tag replace a tag in place or append it, and as_htsjdk_writes orders the result;
//  - Java's hashCode of a byte array (Arrays.hashCode), and the iteration order of a HashSet of
//    such keys.
//
// @code
//   std::vector<std::uint8_t> aux;
//   set_integer_tag(aux, "HC", java_hash_code("ACGT"));   // HC:i:2016994
//   set_string_tag(aux, "CR", "chr20:101-200");
// @endcode
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpp::stages::call {

/// Java's Arrays.hashCode(byte[]) of `bases` (GATK Haplotype.hashCode).
std::int32_t java_hash_code(std::string_view bases);

/**
 * @brief The iteration order of `new HashSet<>(set)` where `set` received `inserted` in order
 *        (repeats ignored): the distinct entries stably sorted by their bucket in a table sized
 *        for their count.
 * @param inserted entries as first added (indices into `hashes`)
 * @param hashes   each entry's Java hashCode
 */
std::vector<std::size_t> java_hash_set_order(std::span<const std::size_t> inserted,
                                             std::span<const std::int32_t> hashes);

/// htsjdk's choice of BAM type for an integer tag (BinaryTagCodec.getIntegerType): c, C, s, S,
/// i or I, the smallest that holds `value`. @throws gpp::Error outside [-2^31, 2^32)
char htsjdk_integer_type(std::int64_t value);

/// `aux` as htsjdk writes a record's attributes: every integer field in htsjdk's type, the
/// fields in the order of their binary tag (SAMBinaryTagAndValue keeps its list sorted by
/// (second character << 8 | first character); a read's tags are sorted so when decoded).
/// @throws gpp::Error for a malformed field
std::vector<std::uint8_t> as_htsjdk_writes(std::span<const std::uint8_t> aux);

/// The value of `tag` when it is a Z field (empty for another type); nullopt when absent.
/// @throws gpp::Error for a malformed field
std::optional<std::string> string_tag(std::span<const std::uint8_t> aux, const char tag[2]);

/// SAMRecord.setAttribute(tag, Integer) on BAM aux bytes: replaced in place when present.
void set_integer_tag(std::vector<std::uint8_t>& aux, const char tag[2], std::int64_t value);
/// SAMRecord.setAttribute(tag, String): replaced in place when present.
void set_string_tag(std::vector<std::uint8_t>& aux, const char tag[2], std::string_view value);

}  // namespace gpp::stages::call
