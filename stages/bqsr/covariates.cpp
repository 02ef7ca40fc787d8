// GATK standard covariates; see covariates.hpp.
#include "stages/bqsr/covariates.hpp"

#include <algorithm>
#include <unordered_map>

#include "core/error.hpp"

namespace gpp::stages::bqsr {

std::string read_group_identifier(const io::ReadGroup& read_group) {
  return read_group.platform_unit.empty() ? read_group.id : read_group.platform_unit;
}

ReadGroupKeys read_group_keys(const io::Header& header) {
  ReadGroupKeys keys;
  std::unordered_map<std::string, int> index;
  for (const io::ReadGroup& read_group : header.read_groups()) {
    const std::string identifier = read_group_identifier(read_group);
    auto [it, inserted] = index.emplace(identifier, static_cast<int>(keys.identifiers.size()));
    if (inserted) keys.identifiers.push_back(identifier);
    keys.key_of_header_read_group.push_back(it->second);
  }
  return keys;
}

void context_keys(const CovariateRead& read, int size, int low_quality_tail,
                  std::vector<int>& keys) {
  const int length = static_cast<int>(read.bases.size());
  keys.resize(static_cast<std::size_t>(length));
  const kernels::bqsr::GoodBases good =
      kernels::bqsr::good_bases(read.quals.data(), length, low_quality_tail);
  for (int offset = 0; offset < length; ++offset) {
    keys[static_cast<std::size_t>(offset)] =
        kernels::bqsr::context_key_at(read.bases.data(), length, good, read.reverse, size, offset);
  }
}

std::string format_context(int key, int size) {
  static constexpr char kBases[] = "ACGT";
  std::string text(static_cast<std::size_t>(size), 'N');
  for (int i = size - 1; i >= 0; --i) {
    text[i] = kBases[key & 3];
    key >>= 2;
  }
  return text;
}

int parse_context(std::string_view text, int size) {
  if (static_cast<int>(text.size()) != size) return -1;
  int key = 0;
  for (const char c : text) {
    const int b = base_code(c);
    if (b < 0) return -1;
    key = (key << 2) | b;
  }
  return key;
}

void cycle_keys(const CovariateRead& read, int maximum_cycle_value, std::vector<int>& keys,
                std::vector<int>* indel_keys) {
  constexpr int kCushionForIndels = 4;
  const int length = static_cast<int>(read.bases.size());
  // The largest |cycle| is the read's length; the message names the first one too large in
  // sequencing order.
  if (length > maximum_cycle_value) {
    const int magnitude = read.reverse ? length : maximum_cycle_value + 1;
    const int cycle = read.second_of_pair ? -magnitude : magnitude;
    throw ReadError("a read has cycle " + std::to_string(cycle) +
                    ", beyond --maximum-cycle-value " + std::to_string(maximum_cycle_value) +
                    "; raise --maximum-cycle-value");
  }
  const std::uint8_t strand = (read.reverse ? kernels::bqsr::kReverseStrand : 0) |
                              (read.second_of_pair ? kernels::bqsr::kSecondOfPair : 0);
  keys.resize(static_cast<std::size_t>(length));
  if (indel_keys != nullptr) indel_keys->resize(static_cast<std::size_t>(length));
  const int max_cycle_for_indels = length - kCushionForIndels - 1;
  for (int i = 0; i < length; ++i) {
    const int key = kernels::bqsr::cycle_key_at(length, strand, i);
    keys[static_cast<std::size_t>(i)] = key;
    if (indel_keys != nullptr) {
      (*indel_keys)[static_cast<std::size_t>(i)] =
          (i < kCushionForIndels || i > max_cycle_for_indels) ? -1 : key;
    }
  }
}

}  // namespace gpp::stages::bqsr
