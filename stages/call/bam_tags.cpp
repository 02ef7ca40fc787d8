// htsjdk's aux encoding and Java's hash codes; see bam_tags.hpp.
#include "stages/call/bam_tags.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <string>

#include "core/error.hpp"
#include "io/reads/aux_fields.hpp"

namespace gpp::stages::call {

namespace {

/// The offset of `tag`'s field in `aux`, or aux.size() when absent.
std::size_t find_field(std::span<const std::uint8_t> aux, const char tag[2]) {
  const std::uint8_t* p = aux.data();
  const std::uint8_t* end = p + aux.size();
  while (p < end) {
    const std::size_t size = io::aux_field_size(p, end);
    if (size == 0) throw Error("haplotype BAM: a read has a malformed aux field");
    if (p[0] == tag[0] && p[1] == tag[1]) return static_cast<std::size_t>(p - aux.data());
    p += size;
  }
  return aux.size();
}

/// Replaces the field of `tag` by `field` (tag, type and value) in place, or appends it.
void set_field(std::vector<std::uint8_t>& aux, const char tag[2],
               const std::vector<std::uint8_t>& field) {
  const std::size_t at = find_field(aux, tag);
  if (at == aux.size()) {
    aux.insert(aux.end(), field.begin(), field.end());
    return;
  }
  const std::size_t size = io::aux_field_size(aux.data() + at, aux.data() + aux.size());
  aux.erase(aux.begin() + static_cast<std::ptrdiff_t>(at),
            aux.begin() + static_cast<std::ptrdiff_t>(at + size));
  aux.insert(aux.begin() + static_cast<std::ptrdiff_t>(at), field.begin(), field.end());
}

std::vector<std::uint8_t> integer_field(const char tag[2], std::int64_t value) {
  const char type = htsjdk_integer_type(value);
  std::vector<std::uint8_t> field{static_cast<std::uint8_t>(tag[0]),
                                  static_cast<std::uint8_t>(tag[1]),
                                  static_cast<std::uint8_t>(type)};
  const std::size_t width = type == 'c' || type == 'C' ? 1 : (type == 's' || type == 'S' ? 2 : 4);
  const auto bits = static_cast<std::uint64_t>(value);
  for (std::size_t b = 0; b < width; ++b)
    field.push_back(static_cast<std::uint8_t>(bits >> (8 * b)));
  return field;
}

/// The value of an integer field (type c, C, s, S, i or I) at `p`.
std::int64_t integer_value(const std::uint8_t* p) {
  const std::uint8_t* v = p + 3;
  switch (p[2]) {
    case 'c':
      return static_cast<std::int8_t>(v[0]);
    case 'C':
      return v[0];
    case 's': {
      std::int16_t x;
      std::memcpy(&x, v, 2);
      return x;
    }
    case 'S': {
      std::uint16_t x;
      std::memcpy(&x, v, 2);
      return x;
    }
    case 'i': {
      std::int32_t x;
      std::memcpy(&x, v, 4);
      return x;
    }
    default: {
      std::uint32_t x;
      std::memcpy(&x, v, 4);
      return x;
    }
  }
}

bool is_integer_type(std::uint8_t type) {
  return type == 'c' || type == 'C' || type == 's' || type == 'S' || type == 'i' || type == 'I';
}

}  // namespace

std::int32_t java_hash_code(std::string_view bases) {
  std::uint32_t hash = 1;  // int arithmetic wraps in Java: unsigned here, the same bits
  for (char base : bases) {
    hash = 31 * hash +
           static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<signed char>(base)));
  }
  return static_cast<std::int32_t>(hash);
}

std::vector<std::size_t> java_hash_set_order(std::span<const std::size_t> inserted,
                                             std::span<const std::int32_t> hashes) {
  std::vector<std::size_t> distinct;
  for (std::size_t entry : inserted) {
    if (std::find(distinct.begin(), distinct.end(), entry) == distinct.end()) {
      distinct.push_back(entry);
    }
  }
  // HashSet(Collection): HashMap(max((int) (n / .75f) + 1, 16)), its table the next power of two.
  const auto wanted = std::max(
      static_cast<std::int64_t>(static_cast<float>(distinct.size()) / 0.75F) + 1, std::int64_t{16});
  std::uint64_t capacity = 1;
  while (capacity < static_cast<std::uint64_t>(wanted)) capacity <<= 1;
  auto bucket = [&](std::size_t entry) {
    const auto h = static_cast<std::uint32_t>(hashes[entry]);
    return (h ^ (h >> 16)) & (capacity - 1);
  };
  std::stable_sort(distinct.begin(), distinct.end(),
                   [&](std::size_t a, std::size_t b) { return bucket(a) < bucket(b); });
  return distinct;
}

char htsjdk_integer_type(std::int64_t value) {
  if (value > std::numeric_limits<std::uint32_t>::max() ||
      value < std::numeric_limits<std::int32_t>::min()) {
    throw Error("haplotype BAM: integer tag value " + std::to_string(value) + " out of range");
  }
  if (value > std::numeric_limits<std::int32_t>::max()) return 'I';
  if (value > std::numeric_limits<std::uint16_t>::max()) return 'i';
  if (value > std::numeric_limits<std::int16_t>::max()) return 'S';
  if (value > std::numeric_limits<std::uint8_t>::max()) return 's';
  if (value > std::numeric_limits<std::int8_t>::max()) return 'C';
  if (value >= std::numeric_limits<std::int8_t>::min()) return 'c';
  if (value >= std::numeric_limits<std::int16_t>::min()) return 's';
  return 'i';
}

std::optional<std::string> string_tag(std::span<const std::uint8_t> aux, const char tag[2]) {
  const std::size_t at = find_field(aux, tag);
  if (at == aux.size()) return std::nullopt;
  if (aux[at + 2] != 'Z') return std::string();
  const std::size_t size = io::aux_field_size(aux.data() + at, aux.data() + aux.size());
  return std::string(reinterpret_cast<const char*>(aux.data() + at + 3), size - 4);
}

std::vector<std::uint8_t> as_htsjdk_writes(std::span<const std::uint8_t> aux) {
  struct Field {
    std::uint16_t key;  // SAMTag.makeBinaryTag: second character high, first low
    std::vector<std::uint8_t> bytes;
  };
  std::vector<Field> fields;
  const std::uint8_t* p = aux.data();
  const std::uint8_t* end = p + aux.size();
  while (p < end) {
    const std::size_t size = io::aux_field_size(p, end);
    if (size == 0) throw Error("haplotype BAM: a read has a malformed aux field");
    Field field{static_cast<std::uint16_t>(p[1] << 8 | p[0]), {}};
    if (is_integer_type(p[2])) {
      const char tag[2] = {static_cast<char>(p[0]), static_cast<char>(p[1])};
      field.bytes = integer_field(tag, integer_value(p));
    } else {
      field.bytes.assign(p, p + size);
    }
    fields.push_back(std::move(field));
    p += size;
  }
  std::stable_sort(fields.begin(), fields.end(),
                   [](const Field& a, const Field& b) { return a.key < b.key; });
  std::vector<std::uint8_t> out;
  out.reserve(aux.size());
  for (const Field& field : fields) out.insert(out.end(), field.bytes.begin(), field.bytes.end());
  return out;
}

void set_integer_tag(std::vector<std::uint8_t>& aux, const char tag[2], std::int64_t value) {
  set_field(aux, tag, integer_field(tag, value));
}

void set_string_tag(std::vector<std::uint8_t>& aux, const char tag[2], std::string_view value) {
  std::vector<std::uint8_t> field{static_cast<std::uint8_t>(tag[0]),
                                  static_cast<std::uint8_t>(tag[1]), 'Z'};
  field.insert(field.end(), value.begin(), value.end());
  field.push_back(0);
  set_field(aux, tag, field);
}

}  // namespace gpp::stages::call
