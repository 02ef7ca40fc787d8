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
  keys.assign(static_cast<std::size_t>(length), -1);
  // clipLowQualEnds(WRITE_NS): leading and trailing bases with quality <= tail become N.
  int first_good = 0;
  while (first_good < length && read.quals[first_good] <= low_quality_tail) ++first_good;
  int last_good = length - 1;
  while (last_good >= 0 && read.quals[last_good] <= low_quality_tail) --last_good;
  if (first_good > last_good) return;  // the whole read is a low-quality tail
  // Base index in stranded order (complemented on the negative strand), -1 for non-ACGT.
  std::vector<int> stranded(static_cast<std::size_t>(length));
  for (int i = 0; i < length; ++i) {
    const int offset = read.reverse ? length - 1 - i : i;
    int b = (offset < first_good || offset > last_good) ? -1 : base_code(read.bases[offset]);
    if (read.reverse && b >= 0) b = 3 - b;
    stranded[i] = b;
  }
  const int mask = context_key_count(size) - 1;
  int key = 0;
  int valid_run = 0;  // consecutive ACGT bases ending at i
  for (int i = 0; i < length; ++i) {
    if (stranded[i] < 0) {
      valid_run = 0;
      key = 0;
    } else {
      ++valid_run;
      key = ((key << 2) | stranded[i]) & mask;
    }
    if (valid_run >= size) keys[read.reverse ? length - 1 - i : i] = key;
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
  const int order = read.second_of_pair ? -1 : 1;
  int cycle = read.reverse ? length * order : order;
  const int increment = read.reverse ? -order : order;
  keys.resize(static_cast<std::size_t>(length));
  if (indel_keys != nullptr) indel_keys->resize(static_cast<std::size_t>(length));
  const int max_cycle_for_indels = length - kCushionForIndels - 1;
  for (int i = 0; i < length; ++i) {
    if (std::abs(cycle) > maximum_cycle_value) {
      throw Error("a read has cycle " + std::to_string(cycle) + ", beyond --maximum-cycle-value " +
                  std::to_string(maximum_cycle_value) + "; raise --maximum-cycle-value");
    }
    const int key = key_from_cycle(cycle);
    keys[i] = key;
    if (indel_keys != nullptr) {
      (*indel_keys)[i] = (i < kCushionForIndels || i > max_cycle_for_indels) ? -1 : key;
    }
    cycle += increment;
  }
}

}  // namespace gpp::stages::bqsr
