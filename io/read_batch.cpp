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

namespace {
template <typename Column>
void append_column(Column& to, const Column& from) {
  to.insert(to.end(), from.begin(), from.end());
}
// Offsets of `from` (which start at 0) shifted by what `to` already holds.
template <typename Offsets>
void append_offsets(Offsets& to, const Offsets& from) {
  const std::uint64_t base = to.back();
  for (std::size_t k = 1; k < from.size(); ++k) to.push_back(base + from[k]);
}
}  // namespace

void ReadBatch::append(const ReadBatch& other) {
  append_column(tid, other.tid);
  append_column(pos, other.pos);
  append_column(end, other.end);
  append_column(flag, other.flag);
  append_column(mapq, other.mapq);
  append_column(bin, other.bin);
  append_column(mate_tid, other.mate_tid);
  append_column(mate_pos, other.mate_pos);
  append_column(tlen, other.tlen);
  append_column(read_group, other.read_group);
  append_column(library, other.library);
  append_offsets(name_offset, other.name_offset);
  append_column(name, other.name);
  append_offsets(cigar_offset, other.cigar_offset);
  append_column(cigar, other.cigar);
  append_offsets(seq_offset, other.seq_offset);
  append_column(seq, other.seq);
  append_column(qual, other.qual);
  append_offsets(aux_offset, other.aux_offset);
  append_column(aux, other.aux);
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
