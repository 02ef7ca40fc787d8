// The on-disk forms of what spilled marking puts aside (pipeline/spilled_marking.cpp): read ends
// and record kinds with only the fields each kind of end uses, without padding, so that the key
// ranges and name buckets of a genome take a third less temporary disk and write time than the
// in-memory structures would.
//
// A fragment end (stages::markdup::fragment_end) never has a mate coordinate, a mate index or an
// optical orientation, so its form leaves them out; a pair end keeps every field; a pair
// candidate is its fragment end with its record's flag and name length (the name follows it and
// its hash is computed again when read back).
//
// @code
//   char bytes[kFragmentBytes];
//   put_fragment(end, bytes);
//   const ReadEnd same = get_fragment(bytes);   // == end, field for field
// @endcode
#pragma once

#include <cstddef>
#include <cstdint>

#include "stages/markdup/read_ends.hpp"

namespace gpp::pipeline::packed {

/// A fragment end: library, read1 reference and coordinate, orientation, mate reference,
/// location, read group, score and index.
inline constexpr std::size_t kFragmentBytes = 35;
/// A pair end: every field of stages::markdup::ReadEnd.
inline constexpr std::size_t kPairBytes = 48;
/// A pair candidate's fixed part: its fragment end, its record's flag and its name's length.
inline constexpr std::size_t kCandidateBytes = kFragmentBytes + 3;
/// A record's kind for Picard's counts: its library key and flag, and the spilled run it is in
/// (the low 16 bits of its number).
inline constexpr std::size_t kKindBytes = 8;

/// Writes a fragment end (one stages::markdup::fragment_end made) to `to`.
void put_fragment(const stages::markdup::ReadEnd& end, char* to);
stages::markdup::ReadEnd get_fragment(const char* from);

void put_pair(const stages::markdup::ReadEnd& end, char* to);
stages::markdup::ReadEnd get_pair(const char* from);

struct Candidate {
  stages::markdup::ReadEnd end;  ///< a fragment end
  std::uint16_t flag = 0;
  std::uint8_t name_length = 0;  ///< BAM names are at most 254 bytes
};
void put_candidate(const Candidate& candidate, char* to);
Candidate get_candidate(const char* from);

struct RecordKind {
  std::int32_t library = 0;
  std::uint16_t flag = 0;
  std::uint16_t run = 0;
};
void put_kind(const RecordKind& kind, char* to);
RecordKind get_kind(const char* from);

}  // namespace gpp::pipeline::packed
