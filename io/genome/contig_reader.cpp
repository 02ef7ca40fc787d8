#include "io/genome/contig_reader.hpp"

#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <cstring>

#include "core/error.hpp"

namespace gpp::io {

namespace {

// Bases read by one task.
constexpr std::int64_t kPieceBases = std::int64_t{1} << 20;

}  // namespace

std::string ContigReader::read(const std::string& name, std::int64_t length) {
  std::string bases(static_cast<std::size_t>(std::max<std::int64_t>(length, 0)), '\0');
  const std::int64_t pieces = (length + kPieceBases - 1) / kPieceBases;
  oneapi::tbb::parallel_for(std::int64_t{0}, pieces, [&](std::int64_t k) {
    std::optional<Reference>& handle = handles_.local();
    if (!handle) handle.emplace(path_);
    const std::int64_t start = k * kPieceBases;
    const std::int64_t end = std::min(length, start + kPieceBases);
    const std::string piece = handle->fetch(name, start, end);
    if (static_cast<std::int64_t>(piece.size()) != end - start) {
      throw Error(path_ + ": cannot read " + name + ":" + std::to_string(start + 1) + "-" +
                  std::to_string(end));
    }
    std::memcpy(bases.data() + start, piece.data(), piece.size());
  });
  return bases;
}

}  // namespace gpp::io
