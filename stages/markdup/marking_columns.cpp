#include "stages/markdup/marking_columns.hpp"

namespace gpp::stages::markdup {

namespace {

template <typename T>
void append_column(io::Column<T>& to, const io::Column<T>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

}  // namespace

void append_marking_columns(const io::ReadBatch& reads, io::ReadBatch& columns) {
  append_column(columns.tid, reads.tid);
  append_column(columns.pos, reads.pos);
  append_column(columns.flag, reads.flag);
  append_column(columns.mate_tid, reads.mate_tid);
  append_column(columns.read_group, reads.read_group);
  append_column(columns.library, reads.library);
  const std::uint64_t base = columns.name.size();
  for (std::size_t i = 1; i < reads.name_offset.size(); ++i)
    columns.name_offset.push_back(base + reads.name_offset[i]);
  append_column(columns.name, reads.name);
}

void shrink_to_fit(io::ReadBatch& columns, EndFeatures& features) {
  // One column at a time, so that the copies shrink_to_fit makes never add up.
  columns.tid.shrink_to_fit();
  columns.pos.shrink_to_fit();
  columns.flag.shrink_to_fit();
  columns.mate_tid.shrink_to_fit();
  columns.read_group.shrink_to_fit();
  columns.library.shrink_to_fit();
  columns.name_offset.shrink_to_fit();
  columns.name.shrink_to_fit();
  features.five_prime.shrink_to_fit();
  features.score.shrink_to_fit();
  features.location.shrink_to_fit();
  features.location_read_group.shrink_to_fit();
  features.name_hash.shrink_to_fit();
}

std::size_t marking_bytes(const io::ReadBatch& columns, const EndFeatures& features) {
  const std::size_t n = columns.size();
  return n * (sizeof(std::int32_t) * 4 + sizeof(std::int64_t) * 2 + sizeof(std::uint16_t)) +
         columns.name.size() +
         features.size() * (sizeof(std::int32_t) + sizeof(std::int16_t) * 2 +
                            sizeof(ClusterLocation) + sizeof(std::uint32_t));
}

}  // namespace gpp::stages::markdup
