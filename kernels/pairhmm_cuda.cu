#include "kernels/error.hpp"
#include "kernels/pairhmm.hpp"
namespace gpp::kernels::detail {
std::unique_ptr<PairHmm::Engine> make_pairhmm_cuda_engine(PairHmmPrecision) { throw Error("pairhmm: no GPU engine yet"); }
}
