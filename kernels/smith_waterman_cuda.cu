#include "kernels/smith_waterman.hpp"
#include "kernels/error.hpp"
namespace gpp::kernels::detail {
void smith_waterman_cuda(const SequencePairs&, std::span<const std::uint32_t>, const SwParameters&,
                         OverhangStrategy, std::span<PairResult>, SwStats&) {
  throw Error("todo");
}
}
