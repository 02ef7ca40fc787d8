// SharedInflater: one block decoder, many readers (see shared_inflater.hpp).
#include "pipeline/shared_inflater.hpp"

#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/first_failure.hpp"

namespace gpp::pipeline {

namespace {

// A part submitted to the decoder, and the buffer it lands in: its blocks one after the other.
struct StagedPart {
  std::unique_ptr<std::uint8_t[]> bytes;
  std::size_t capacity = 0;
  std::vector<std::uint64_t> offsets;  // of each block in `bytes`
  std::vector<std::uint32_t> sizes;
  std::size_t count = 0;
  std::size_t bad = 0;       // the decoder's first bad block, or count
  bool landed = false;       // guarded by State::mutex
  std::exception_ptr error;  // the decoder failed landing it
};

}  // namespace

struct SharedInflater::State {
  kernels::BlockInflater& inflater;
  std::shared_ptr<void> lease;
  std::mutex mutex;
  std::deque<std::shared_ptr<StagedPart>> in_decoder;  // oldest first; guarded by `mutex`

  State(kernels::BlockInflater& decoder, std::shared_ptr<void> held)
      : inflater(decoder), lease(std::move(held)) {}
  ~State() {
    // Clients that went first landed theirs; whatever is left is dropped, so that the decoder
    // goes back with nothing in flight.
    for (; !in_decoder.empty(); in_decoder.pop_front()) {
      try {
        inflater.land(nullptr, nullptr);
      } catch (...) {
      }
    }
  }

  // Lands the decoder's oldest part into its staging buffer. `mutex` is held.
  void land_oldest() {
    const std::shared_ptr<StagedPart> part = std::move(in_decoder.front());
    in_decoder.pop_front();
    part->landed = true;
    try {
      // The decoder copies in parallel: isolated, so that this thread, holding the lock, takes
      // no other task meanwhile.
      oneapi::tbb::this_task_arena::isolate(
          [&] { part->bad = inflater.land(part->bytes.get(), part->offsets.data()); });
    } catch (...) {
      part->error = std::current_exception();
      throw;
    }
  }
};

// One reader's side: its parts in submission order, and spare buffers.
struct SharedInflater::Client {
  std::shared_ptr<State> state;
  std::deque<std::shared_ptr<StagedPart>> parts;
  std::vector<std::shared_ptr<StagedPart>> spare;
};

SharedInflater::SharedInflater(kernels::BlockInflater& inflater, std::shared_ptr<void> lease)
    : state_(std::make_shared<State>(inflater, std::move(lease))) {}

io::InflateOffload SharedInflater::client(std::size_t max_blocks, std::size_t in_flight) const {
  auto client = std::make_shared<Client>();
  client->state = state_;
  io::InflateOffload offload;
  offload.submit = [client](const io::InflateOffload::Part& part) {
    std::shared_ptr<StagedPart> staged;
    if (client->spare.empty()) {
      staged = std::make_shared<StagedPart>();
    } else {
      staged = std::move(client->spare.back());
      client->spare.pop_back();
    }
    staged->count = part.count;
    staged->sizes.assign(part.out_sizes, part.out_sizes + part.count);
    staged->offsets.resize(part.count);
    std::size_t total = 0;
    for (std::size_t k = 0; k < part.count; ++k) {
      staged->offsets[k] = total;
      total += part.out_sizes[k];
    }
    if (staged->capacity < total) {
      staged->bytes.reset(new std::uint8_t[total]);
      staged->capacity = total;
    }
    staged->landed = false;
    staged->error = nullptr;
    State& state = *client->state;
    {
      const std::lock_guard lock(state.mutex);
      if (state.in_decoder.size() >= state.inflater.in_flight()) state.land_oldest();
      state.inflater.submit({.data = part.data,
                             .in_offsets = part.in_offsets,
                             .in_sizes = part.in_sizes,
                             .count = part.count,
                             .out_sizes = part.out_sizes,
                             .crcs = part.crcs});
      state.in_decoder.push_back(staged);
    }
    client->parts.push_back(std::move(staged));
  };
  offload.land = [client](std::uint8_t* out, const std::uint64_t* out_offsets,
                          const io::InflateOffload::Check& check) -> std::size_t {
    if (client->parts.empty()) throw Error("SharedInflater: nothing to land");
    std::shared_ptr<StagedPart> part = std::move(client->parts.front());
    client->parts.pop_front();
    State& state = *client->state;
    {
      const std::lock_guard lock(state.mutex);
      while (!part->landed) {
        if (out != nullptr && state.in_decoder.front() == part) {
          // The decoder's oldest part is this reader's own: landed in place and checked there,
          // without the staging buffer's copy.
          state.in_decoder.pop_front();
          part->landed = true;
          std::size_t bad = 0;
          oneapi::tbb::this_task_arena::isolate(
              [&] { bad = state.inflater.land(out, out_offsets, check); });
          client->spare.push_back(std::move(part));
          return bad;
        }
        state.land_oldest();
      }
    }
    if (part->error) std::rethrow_exception(part->error);
    FirstFailure first_bad(part->bad);
    if (out != nullptr) {
      oneapi::tbb::parallel_for(std::size_t{0}, part->bad, [&](std::size_t k) {
        std::copy_n(part->bytes.get() + part->offsets[k], part->sizes[k], out + out_offsets[k]);
        if (check && !check(k)) first_bad.report(k);
      });
    }
    const std::size_t bad = out != nullptr ? first_bad.get() : part->count;
    client->spare.push_back(std::move(part));
    return bad;
  };
  offload.ready = [client] {
    const std::lock_guard lock(client->state->mutex);
    return client->state->inflater.ready();
  };
  offload.max_blocks = std::clamp<std::size_t>(max_blocks, 1, kernels::BlockInflater::kPartBlocks);
  offload.max_stream_bytes = kernels::BlockInflater::kPartStreamBytes;
  offload.in_flight = std::max<std::size_t>(in_flight, 1);
  return offload;
}

}  // namespace gpp::pipeline
