#include "io/bam/thread_pool.hpp"

#include <htslib/hts.h>
#include <htslib/thread_pool.h>

#include <algorithm>

#include "core/error.hpp"

namespace gpp::io {

struct ThreadPool::State {
  htsThreadPool pool{nullptr, 0};
};

ThreadPool::ThreadPool(int threads) : state_(std::make_unique<State>()) {
  state_->pool.pool = hts_tpool_init(std::max(threads, 1));
  if (state_->pool.pool == nullptr)
    throw Error("cannot start " + std::to_string(threads) + " I/O threads");
}

ThreadPool::~ThreadPool() {
  if (state_->pool.pool != nullptr) hts_tpool_destroy(state_->pool.pool);
}

void* ThreadPool::native() const { return &state_->pool; }

}  // namespace gpp::io
