#include "io/record_codec.hpp"

#include <array>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

namespace gpp::io::detail {

namespace {

// Two ASCII bases for each packed byte of BAM SEQ (high nibble first).
const std::array<std::array<char, 2>, 256>& nibble_pair_table() {
  static const auto table = [] {
    std::array<std::array<char, 2>, 256> t{};
    for (int byte = 0; byte < 256; ++byte) {
      t[byte] = {seq_nt16_str[byte >> 4], seq_nt16_str[byte & 0xF]};
    }
    return t;
  }();
  return table;
}

template <typename T, typename Src>
void append_bytes(Column<T>& column, const Src* data, std::size_t count) {
  const std::size_t old = column.size();
  column.resize(old + count);
  if (count > 0) std::memcpy(column.data() + old, data, count * sizeof(T));
}

std::int32_t read_group_of(const bam1_t& record, const Header& header) {
  if (header.read_groups().empty()) return -1;
  const std::uint8_t* rg = bam_aux_get(&record, "RG");
  if (rg == nullptr || rg[0] != 'Z') return -1;
  // Neighbouring records usually share a read group: check the last one before hashing.
  thread_local const Header* last_header = nullptr;
  thread_local std::string last_id;
  thread_local std::int32_t last_index = -1;
  const char* id = reinterpret_cast<const char*>(rg + 1);
  if (last_header != &header || last_id != id) {
    last_header = &header;
    last_id = id;
    last_index = header.read_group_index(last_id);
  }
  return last_index;
}

}  // namespace

void append_record(const bam1_t& record, const Header& header, ReadBatch& batch) {
  const bam1_core_t& c = record.core;
  batch.tid.push_back(c.tid);
  batch.pos.push_back(c.pos);
  batch.end.push_back(bam_endpos(&record));
  batch.flag.push_back(c.flag);
  batch.mapq.push_back(c.qual);
  batch.bin.push_back(c.bin);
  batch.mate_tid.push_back(c.mtid);
  batch.mate_pos.push_back(c.mpos);
  batch.tlen.push_back(c.isize);
  const std::int32_t rg = read_group_of(record, header);
  batch.read_group.push_back(rg);
  batch.library.push_back(rg < 0 ? -1 : header.read_groups()[rg].library_index);

  const std::size_t name_length = c.l_qname - c.l_extranul - 1;
  append_bytes(batch.name, bam_get_qname(&record), name_length);
  batch.name_offset.push_back(batch.name.size());

  append_bytes(batch.cigar, bam_get_cigar(&record), c.n_cigar);
  batch.cigar_offset.push_back(batch.cigar.size());

  const std::size_t l_qseq = static_cast<std::size_t>(c.l_qseq);
  const std::uint8_t* packed = bam_get_seq(&record);
  const std::size_t seq_old = batch.seq.size();
  batch.seq.resize(seq_old + l_qseq);
  char* out = batch.seq.data() + seq_old;
  const auto& pairs = nibble_pair_table();
  for (std::size_t k = 0; k < l_qseq / 2; ++k) std::memcpy(out + 2 * k, pairs[packed[k]].data(), 2);
  if (l_qseq % 2 == 1) out[l_qseq - 1] = pairs[packed[l_qseq / 2]][0];
  append_bytes(batch.qual, bam_get_qual(&record), l_qseq);
  batch.seq_offset.push_back(batch.seq.size());

  append_bytes(batch.aux, bam_get_aux(&record), static_cast<std::size_t>(bam_get_l_aux(&record)));
  batch.aux_offset.push_back(batch.aux.size());
}

void encode_record(const ReadBatch& batch, std::size_t i, bam1_t& record) {
  const std::string_view name = batch.read_name(i);
  const auto cigar = batch.read_cigar(i);
  const std::string_view seq = batch.read_seq(i);
  const auto qual = batch.read_qual(i);
  const auto aux = batch.read_aux(i);

  // QNAME is NUL-terminated and padded with extra NULs so CIGAR stays 4-byte aligned in memory.
  const std::size_t l_qname_on_disk = name.size() + 1;
  const std::size_t extranul = (4 - l_qname_on_disk % 4) % 4;
  const std::size_t l_qname = l_qname_on_disk + extranul;
  const std::size_t l_data =
      l_qname + 4 * cigar.size() + (seq.size() + 1) / 2 + seq.size() + aux.size();
  if (l_data > static_cast<std::size_t>(record.m_data)) {
    // HTSlib frees bam1_t::data with free(), so it must come from the C allocator.
    void* grown = std::realloc(record.data, l_data);
    if (grown == nullptr) throw std::bad_alloc();
    record.data = static_cast<std::uint8_t*>(grown);
    record.m_data = l_data;
  }
  bam1_core_t& c = record.core;
  c.tid = batch.tid[i];
  c.pos = batch.pos[i];
  c.bin = batch.bin[i];
  c.qual = batch.mapq[i];
  c.l_extranul = static_cast<std::uint8_t>(extranul);
  c.flag = batch.flag[i];
  c.l_qname = static_cast<std::uint16_t>(l_qname);
  c.n_cigar = static_cast<std::uint32_t>(cigar.size());
  c.l_qseq = static_cast<std::int32_t>(seq.size());
  c.mtid = batch.mate_tid[i];
  c.mpos = batch.mate_pos[i];
  c.isize = batch.tlen[i];
  record.l_data = static_cast<int>(l_data);

  std::uint8_t* p = record.data;
  std::memcpy(p, name.data(), name.size());
  std::memset(p + name.size(), 0, 1 + extranul);
  p += l_qname;
  if (!cigar.empty()) std::memcpy(p, cigar.data(), 4 * cigar.size());
  p += 4 * cigar.size();
  const std::size_t n = seq.size();
  for (std::size_t k = 0; k + 1 < n; k += 2) {
    *p++ = static_cast<std::uint8_t>(seq_nt16_table[static_cast<unsigned char>(seq[k])] << 4 |
                                     seq_nt16_table[static_cast<unsigned char>(seq[k + 1])]);
  }
  if (n % 2 == 1) *p++ = static_cast<std::uint8_t>(seq_nt16_table[static_cast<unsigned char>(seq[n - 1])] << 4);
  if (n > 0) std::memcpy(p, qual.data(), n);
  p += n;
  if (!aux.empty()) std::memcpy(p, aux.data(), aux.size());
}

}  // namespace gpp::io::detail
