// SharedInflater: one BGZF block decoder (kernels::BlockInflater, made for one caller) serving
// many readers at once, each on its own thread — the spilled runs of a merge, read side by side.
//
// Each reader gets an io::InflateOffload of its own. Its parts go into the one decoder in the
// order they come; when the decoder is full, or a reader lands a part still in it, the decoder's
// oldest part is landed into a staging buffer of its reader's, whoever that is: no reader ever
// waits for another to land, so readers that are not read from (a merge waiting on one run) hold
// up nobody. A reader's land moves its part from the staging buffer into place and checks it, or,
// where its part is the decoder's oldest, lands it in place from the decoder.
//
// @code
//   auto shared = std::make_shared<SharedInflater>(inflater);    // lent: it outlives the readers
//   io::ReaderOptions options{.inflate_offload = shared->client(64)};  // per reader
// @endcode
#pragma once

#include <cstddef>
#include <memory>

#include "io/bam/inflate_offload.hpp"
#include "kernels/bgzf/bgzf_inflate.hpp"

namespace gpp::pipeline {

class SharedInflater {
 public:
  /// Serves through `inflater`, which must outlive every client; `lease` is held until this
  /// and every client have gone (a GpuSession's loan). Nothing may be in flight in `inflater`.
  explicit SharedInflater(kernels::BlockInflater& inflater, std::shared_ptr<void> lease = {});

  /// A reader's interface: parts of at most `max_blocks` blocks (at most
  /// kernels::BlockInflater::kPartBlocks), `in_flight` of them submitted and not landed at most
  /// (each staged, up to 64 KiB a block, once the decoder has done it).
  io::InflateOffload client(std::size_t max_blocks, std::size_t in_flight = 2) const;

 private:
  struct State;
  struct Client;
  std::shared_ptr<State> state_;
};

}  // namespace gpp::pipeline
