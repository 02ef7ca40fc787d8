#include "io/reads/read_batch.hpp"

#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <stdexcept>

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
  bam_record.clear();
  bam_record_owners.clear();
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
  if (!empty() && !other.empty() && keeps_bam_records() != other.keeps_bam_records()) {
    throw std::logic_error("ReadBatch::append: batches with and without kept BAM records");
  }
  append_column(bam_record, other.bam_record);
  bam_record_owners.insert(bam_record_owners.end(), other.bam_record_owners.begin(),
                           other.bam_record_owners.end());
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

void ReadBatch::append_row(const ReadBatch& other, std::size_t i) {
  if (other.keeps_bam_records())
    throw std::logic_error("ReadBatch::append_row: rows of kept BAM records");
  tid.push_back(other.tid[i]);
  pos.push_back(other.pos[i]);
  end.push_back(other.end[i]);
  flag.push_back(other.flag[i]);
  mapq.push_back(other.mapq[i]);
  bin.push_back(other.bin[i]);
  mate_tid.push_back(other.mate_tid[i]);
  mate_pos.push_back(other.mate_pos[i]);
  tlen.push_back(other.tlen[i]);
  read_group.push_back(other.read_group[i]);
  library.push_back(other.library[i]);
  auto copy = [](auto& to, auto& to_offsets, const auto& from, const auto& from_offsets,
                 std::size_t row) {
    to.insert(to.end(), from.begin() + static_cast<std::ptrdiff_t>(from_offsets[row]),
              from.begin() + static_cast<std::ptrdiff_t>(from_offsets[row + 1]));
    to_offsets.push_back(to.size());
  };
  copy(name, name_offset, other.name, other.name_offset, i);
  copy(cigar, cigar_offset, other.cigar, other.cigar_offset, i);
  qual.insert(qual.end(), other.qual.begin() + static_cast<std::ptrdiff_t>(other.seq_offset[i]),
              other.qual.begin() + static_cast<std::ptrdiff_t>(other.seq_offset[i + 1]));
  copy(seq, seq_offset, other.seq, other.seq_offset, i);
  copy(aux, aux_offset, other.aux, other.aux_offset, i);
}

void ReadBatch::append_rows(std::span<const ReadBatch* const> sources,
                            std::span<const RowRef> rows) {
  for (const ReadBatch* source : sources) {
    if (source->keeps_bam_records())
      throw std::logic_error("ReadBatch::append_rows: rows of kept BAM records");
  }
  const std::size_t first = size();
  const std::size_t n = rows.size();
  auto grow = [n](auto&... columns) { (columns.resize(columns.size() + n), ...); };
  grow(tid, pos, end, flag, mapq, bin, mate_tid, mate_pos, tlen, read_group, library, name_offset,
       cigar_offset, seq_offset, aux_offset);
  // Fixed-width fields and each record's lengths (as offsets, prefix-summed below).
  oneapi::tbb::parallel_for(std::size_t{0}, n, [&](std::size_t k) {
    const ReadBatch& from = *sources[rows[k].source];
    const std::size_t i = rows[k].row;
    const std::size_t at = first + k;
    tid[at] = from.tid[i];
    pos[at] = from.pos[i];
    end[at] = from.end[i];
    flag[at] = from.flag[i];
    mapq[at] = from.mapq[i];
    bin[at] = from.bin[i];
    mate_tid[at] = from.mate_tid[i];
    mate_pos[at] = from.mate_pos[i];
    tlen[at] = from.tlen[i];
    read_group[at] = from.read_group[i];
    library[at] = from.library[i];
    name_offset[at + 1] = from.name_offset[i + 1] - from.name_offset[i];
    cigar_offset[at + 1] = from.cigar_offset[i + 1] - from.cigar_offset[i];
    seq_offset[at + 1] = from.seq_offset[i + 1] - from.seq_offset[i];
    aux_offset[at + 1] = from.aux_offset[i + 1] - from.aux_offset[i];
  });
  for (auto* offsets : {&name_offset, &cigar_offset, &seq_offset, &aux_offset}) {
    for (std::size_t at = first + 1; at <= first + n; ++at) (*offsets)[at] += (*offsets)[at - 1];
  }
  name.resize(name_offset.back());
  cigar.resize(cigar_offset.back());
  seq.resize(seq_offset.back());
  qual.resize(seq_offset.back());
  aux.resize(aux_offset.back());
  auto copy = [](auto& to, const auto& to_offsets, const auto& from, const auto& from_offsets,
                 std::size_t i, std::size_t at) {
    std::copy(from.begin() + static_cast<std::ptrdiff_t>(from_offsets[i]),
              from.begin() + static_cast<std::ptrdiff_t>(from_offsets[i + 1]),
              to.begin() + static_cast<std::ptrdiff_t>(to_offsets[at]));
  };
  oneapi::tbb::parallel_for(std::size_t{0}, n, [&](std::size_t k) {
    const ReadBatch& from = *sources[rows[k].source];
    const std::size_t i = rows[k].row;
    const std::size_t at = first + k;
    copy(name, name_offset, from.name, from.name_offset, i, at);
    copy(cigar, cigar_offset, from.cigar, from.cigar_offset, i, at);
    copy(seq, seq_offset, from.seq, from.seq_offset, i, at);
    copy(qual, seq_offset, from.qual, from.seq_offset, i, at);
    copy(aux, aux_offset, from.aux, from.aux_offset, i, at);
  });
}

std::size_t ReadBatch::memory_bytes() const {
  const std::size_t n = size();
  return n * kFixedRowBytes + name.size() + cigar.size() * sizeof(std::uint32_t) + seq.size() +
         qual.size() + aux.size() + bam_record.size() * sizeof(const std::uint8_t*);
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
  if (keeps_bam_records()) bam_record.reserve(n);
  for (auto* offsets : {&name_offset, &cigar_offset, &seq_offset, &aux_offset})
    offsets->reserve(n + 1);
  name.reserve(name.size() + records * name_bytes_per_record);
  cigar.reserve(cigar.size() + records * cigar_ops_per_record);
  seq.reserve(seq.size() + records * bases_per_record);
  qual.reserve(qual.size() + records * bases_per_record);
  aux.reserve(aux.size() + records * aux_bytes_per_record);
}

}  // namespace gpp::io
