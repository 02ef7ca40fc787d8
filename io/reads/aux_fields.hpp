// Walking the raw BAM aux bytes kept in ReadBatch::aux (SAM spec section 4.2.4). Header-only so
// stages can look up a tag without HTSlib.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>

namespace gpp::io {

/// Size of the aux field (tag, type, value) starting at `p`, or 0 when it is malformed or runs
/// past `end`.
inline std::size_t aux_field_size(const std::uint8_t* p, const std::uint8_t* end) {
  if (end - p < 3) return 0;
  auto fits = [&](std::size_t size) {
    return size <= static_cast<std::size_t>(end - p) ? size : 0;
  };
  switch (p[2]) {
    case 'A':
    case 'c':
    case 'C':
      return fits(4);
    case 's':
    case 'S':
      return fits(5);
    case 'i':
    case 'I':
    case 'f':
      return fits(7);
    case 'Z':
    case 'H': {
      const void* nul = std::memchr(p + 3, 0, end - p - 3);
      return nul == nullptr
                 ? 0
                 : static_cast<std::size_t>(static_cast<const std::uint8_t*>(nul) - p + 1);
    }
    case 'B': {
      if (end - p < 8) return 0;
      std::size_t element = 0;
      switch (p[3]) {
        case 'c':
        case 'C':
          element = 1;
          break;
        case 's':
        case 'S':
          element = 2;
          break;
        case 'i':
        case 'I':
        case 'f':
          element = 4;
          break;
        default:
          return 0;
      }
      std::uint32_t count;
      std::memcpy(&count, p + 4, 4);
      return fits(8 + element * static_cast<std::size_t>(count));
    }
    default:
      return 0;
  }
}

/// The field with tag `tag` (two characters) in `aux`, pointing at its type byte, or nullptr.
inline const std::uint8_t* find_aux_field(std::span<const std::uint8_t> aux, const char tag[2]) {
  const std::uint8_t* p = aux.data();
  const std::uint8_t* end = aux.data() + aux.size();
  while (p < end) {
    const std::size_t size = aux_field_size(p, end);
    if (size == 0) return nullptr;
    if (p[0] == static_cast<std::uint8_t>(tag[0]) && p[1] == static_cast<std::uint8_t>(tag[1]))
      return p + 2;
    p += size;
  }
  return nullptr;
}

}  // namespace gpp::io
