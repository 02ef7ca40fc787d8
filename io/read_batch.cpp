#include "io/read_batch.hpp"

namespace gpp::io {

void ReadBatch::clear() {
  tid.clear();
  pos.clear();
  end.clear();
  flag.clear();
  mapq.clear();
  bin.clear();
  mate_tid.clear();
  mate_pos.clear();
  tlen.clear();
  read_group.clear();
  library.clear();
  name.clear();
  cigar.clear();
  seq.clear();
  qual.clear();
  aux.clear();
  name_offset.assign(1, 0);
  cigar_offset.assign(1, 0);
  seq_offset.assign(1, 0);
  aux_offset.assign(1, 0);
}

void ReadBatch::reserve_more(std::size_t records, std::size_t bases_per_record,
                             std::size_t name_bytes_per_record, std::size_t cigar_ops_per_record,
                             std::size_t aux_bytes_per_record) {
  const std::size_t n = size() + records;
  tid.reserve(n);
  pos.reserve(n);
  end.reserve(n);
  flag.reserve(n);
  mapq.reserve(n);
  bin.reserve(n);
  mate_tid.reserve(n);
  mate_pos.reserve(n);
  tlen.reserve(n);
  read_group.reserve(n);
  library.reserve(n);
  for (auto* offsets : {&name_offset, &cigar_offset, &seq_offset, &aux_offset}) offsets->reserve(n + 1);
  name.reserve(name.size() + records * name_bytes_per_record);
  cigar.reserve(cigar.size() + records * cigar_ops_per_record);
  seq.reserve(seq.size() + records * bases_per_record);
  qual.reserve(qual.size() + records * bases_per_record);
  aux.reserve(aux.size() + records * aux_bytes_per_record);
}

}  // namespace gpp::io
