#include "core/parallel_copy.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <cstring>

namespace gpp {

void parallel_copy(void* to, const void* from, std::size_t bytes, std::size_t piece_bytes) {
  const std::size_t piece = piece_bytes;
  if (bytes <= piece) {
    if (bytes != 0) std::memcpy(to, from, bytes);
    return;
  }
  auto* out = static_cast<unsigned char*>(to);
  const auto* in = static_cast<const unsigned char*>(from);
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, (bytes + piece - 1) / piece),
                            [&](const oneapi::tbb::blocked_range<std::size_t>& pieces) {
                              for (std::size_t p = pieces.begin(); p != pieces.end(); ++p) {
                                const std::size_t begin = p * piece;
                                const std::size_t size =
                                    begin + piece < bytes ? piece : bytes - begin;
                                std::memcpy(out + begin, in + begin, size);
                              }
                            });
}

}  // namespace gpp
