// Test helpers for the read-preparation tests: small CallRead builders in the spirit of GATK's
// ArtificialReadUtils / ReadClipperTestUtils.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/cigar.hpp"
#include "core/error.hpp"
#include "stages/call/call_read.hpp"
#include "stages/call/cigar_edit.hpp"
#include "stages/call/read_filters.hpp"
#include "tests/stages/call/cigar_text.hpp"

namespace gpp::stages::call::testing {

/// CIGAR text to BAM-packed elements and back (tests/stages/call/cigar_text.hpp).
inline std::vector<std::uint32_t> parse_cigar(std::string_view text) {
  return test::cigar_of(text);
}
inline std::string cigar_text(const std::vector<std::uint32_t>& cigar) {
  return test::text_of(cigar);
}

/// A mapped read: bases repeat "ACTG" and qualities repeat {2, 15, 25, 30}, as
/// ReadClipperTestUtils.makeReadFromCigar makes them; MQ 60, contig 0.
inline CallRead read_from_cigar(std::string_view cigar, std::int64_t start = 9999) {
  CallRead read;
  read.name = "default_read";
  read.contig = 0;
  read.start = start;
  read.cigar = parse_cigar(cigar);
  const std::uint64_t length = cigar_query_length(read.cigar);
  static constexpr char kBases[] = {'A', 'C', 'T', 'G'};
  static constexpr std::uint8_t kQuals[] = {2, 15, 25, 30};
  for (std::uint64_t i = 0; i < length; ++i) {
    read.bases.push_back(kBases[i % 4]);
    read.quals.push_back(kQuals[i % 4]);
  }
  read.mapping_quality = 60;
  return read;
}

/// A mapped read with the given bases and a flat quality.
inline CallRead make_read(std::string name, std::int64_t start, std::string_view cigar,
                          std::string bases, std::uint8_t quality = 30) {
  CallRead read;
  read.name = std::move(name);
  read.contig = 0;
  read.start = start;
  read.cigar = parse_cigar(cigar);
  read.quals.assign(bases.size(), quality);
  read.bases = std::move(bases);
  read.mapping_quality = 60;
  return read;
}

/// Makes `read` one of a pair with its mate mapped at `mate_start` on the same contig.
inline void set_mate(CallRead& read, std::int64_t mate_start, std::int64_t insert_size,
                     bool reverse, bool mate_reverse) {
  read.flag |= 0x1;
  read.flag = static_cast<std::uint16_t>((read.flag & ~0x30) | (reverse ? 0x10 : 0) |
                                         (mate_reverse ? 0x20 : 0));
  read.mate_contig = read.contig;
  read.mate_start = mate_start;
  read.insert_size = insert_size;
}

/// ReadClipperTestUtils.generateCigarList(maximumCigarElements, false): every good core of
/// exactly (max - clips) one-base I/D/M elements, between every combination of leading and
/// trailing clips, normalised by CigarBuilder (failures skipped).
inline std::vector<std::vector<std::uint32_t>> generated_cigars(int maximum_elements) {
  const std::vector<std::vector<std::string>> leading = {{}, {"1H"}, {"1S"}, {"1H", "1S"}};
  const std::vector<std::vector<std::string>> trailing = {{}, {"1H"}, {"1S"}, {"1S", "1H"}};
  const std::uint32_t core[] = {cigar_element(CigarOp::kInsertion, 1),
                                cigar_element(CigarOp::kDeletion, 1),
                                cigar_element(CigarOp::kMatch, 1)};
  std::vector<std::vector<std::uint32_t>> cigars;
  for (const auto& lead : leading) {
    for (const auto& trail : trailing) {
      const int core_count = maximum_elements - static_cast<int>(lead.size() + trail.size());
      if (core_count < 1) continue;
      int combinations = 1;
      for (int i = 0; i < core_count; ++i) combinations *= 3;
      for (int combination = 0; combination < combinations; ++combination) {
        std::vector<std::uint32_t> raw;
        for (int i = 0, rest = combination; i < core_count; ++i, rest /= 3) {
          raw.push_back(core[rest % 3]);
        }
        if (!gpp::stages::call::is_good_cigar(raw)) continue;
        try {
          GatkCigarBuilder builder;
          for (const auto& e : lead) builder.add(parse_cigar(e).front());
          builder.add_all(raw);
          for (const auto& e : trail) builder.add(parse_cigar(e).front());
          cigars.push_back(builder.make());
        } catch (const Error&) {
        }
      }
    }
  }
  return cigars;
}

}  // namespace gpp::stages::call::testing
