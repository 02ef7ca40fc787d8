#include "stages/sort/queryname_sort.hpp"

#include <oneapi/tbb/parallel_sort.h>

#include <cctype>
#include <numeric>

namespace gpp::stages::sort {

namespace {
bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
}  // namespace

int natural_name_compare(std::string_view a, std::string_view b) {
  std::size_t i = 0;
  std::size_t j = 0;
  auto at = [](std::string_view s, std::size_t k) -> unsigned char {
    return k < s.size() ? static_cast<unsigned char>(s[k]) : 0;
  };
  while (i < a.size() && j < b.size()) {
    if (is_digit(at(a, i)) && is_digit(at(b, j))) {
      const std::size_t a_start = i;
      const std::size_t b_start = j;
      while (at(a, i) == '0') ++i;
      while (at(b, j) == '0') ++j;
      while (is_digit(at(a, i)) && is_digit(at(b, j)) && at(a, i) == at(b, j)) ++i, ++j;
      if (is_digit(at(a, i)) && is_digit(at(b, j))) {
        std::size_t k = 0;
        while (is_digit(at(a, i + k)) && is_digit(at(b, j + k))) ++k;
        if (is_digit(at(a, i + k))) return 1;
        if (is_digit(at(b, j + k))) return -1;
        return static_cast<int>(at(a, i)) - static_cast<int>(at(b, j));
      }
      if (is_digit(at(a, i))) return 1;
      if (is_digit(at(b, j))) return -1;
      // Equal numbers: the one written with more leading zeros sorts first.
      if (i - a_start != j - b_start) return i - a_start < j - b_start ? 1 : -1;
    } else {
      if (at(a, i) != at(b, j)) return static_cast<int>(at(a, i)) - static_cast<int>(at(b, j));
      ++i;
      ++j;
    }
  }
  return i < a.size() ? 1 : (j < b.size() ? -1 : 0);
}

int queryname_compare(const io::ReadBatch& a, std::size_t i, const io::ReadBatch& b,
                      std::size_t j) {
  const int names = natural_name_compare(a.read_name(i), b.read_name(j));
  if (names != 0) return names;
  return (a.flag[i] & 0xC0) - (b.flag[j] & 0xC0);
}

std::vector<std::uint32_t> queryname_order(const io::ReadBatch& reads) {
  std::vector<std::uint32_t> order(reads.size());
  std::iota(order.begin(), order.end(), 0u);
  oneapi::tbb::parallel_sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
    const int order = queryname_compare(reads, x, reads, y);
    return order != 0 ? order < 0 : x < y;  // stable
  });
  return order;
}

}  // namespace gpp::stages::sort
