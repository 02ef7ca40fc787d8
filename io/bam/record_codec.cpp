#include "io/bam/record_codec.hpp"

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "io/bam/bam_bytes.hpp"
#include "io/reads/aux_fields.hpp"

namespace gpp::io::detail {

namespace {

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
  // Neighbouring records usually share a read group: check the last one before hashing. The
  // cached index is used only if it still names this id in this header (a header read later may
  // live at the address of one freed before).
  thread_local const Header* last_header = nullptr;
  thread_local std::int32_t last_index = -1;
  const char* id = reinterpret_cast<const char*>(rg + 1);
  const auto& groups = header.read_groups();
  if (last_header == &header && last_index >= 0 &&
      static_cast<std::size_t>(last_index) < groups.size() &&
      groups[static_cast<std::size_t>(last_index)].id == id) {
    return last_index;
  }
  last_header = &header;
  last_index = header.read_group_index(id);
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
  unpack_bases(packed, l_qseq, batch.seq.data() + seq_old);
  append_bytes(batch.qual, bam_get_qual(&record), l_qseq);
  batch.seq_offset.push_back(batch.seq.size());

  append_bytes(batch.aux, bam_get_aux(&record), static_cast<std::size_t>(bam_get_l_aux(&record)));
  batch.aux_offset.push_back(batch.aux.size());
}

namespace {

// What encode_record copies after the name and CIGAR: packed bases, qualities and aux bytes.
struct Payload {
  std::size_t l_seq = 0;
  std::size_t packed_size = 0;
  const std::uint8_t* packed = nullptr;  // null: pack batch.read_seq(i)
  std::span<const std::uint8_t> qual;
  std::span<const std::uint8_t> aux_before_cg,
      aux_after_cg;  // aux without a CG tag moved into the CIGAR
};

Payload payload(const ReadBatch& batch, std::size_t i, std::span<const std::uint32_t> cigar) {
  Payload p;
  p.l_seq = batch.seq_length(i);
  p.packed_size = (p.l_seq + 1) / 2;
  p.qual = batch.read_qual(i);
  p.aux_before_cg = batch.read_aux(i);
  if (!batch.keeps_bam_records()) return p;
  p.packed = p.qual.data() - p.packed_size;  // the packed bases come just before the qualities
  const std::uint8_t* r = batch.bam_record[i];
  const std::size_t stored_cigar = load16(r + 16);
  // A CIGAR read from a CG tag differs from the stored placeholder; the tag is then dropped, as
  // the columns drop it.
  if (stored_cigar != cigar.size() ||
      (stored_cigar > 0 && std::memcmp(r + 36 + r[12], cigar.data(), 4 * stored_cigar) != 0)) {
    if (const std::uint8_t* cg = find_aux_field(p.aux_before_cg, "CG")) {
      const std::uint8_t* field = cg - 2;
      const std::uint8_t* aux_end = p.aux_before_cg.data() + p.aux_before_cg.size();
      p.aux_after_cg = {field + aux_field_size(field, aux_end), aux_end};
      p.aux_before_cg = {p.aux_before_cg.data(), field};
    }
  }
  return p;
}

}  // namespace

void encode_record(const ReadBatch& batch, std::size_t i, bam1_t& record) {
  const std::string_view name = batch.read_name(i);
  const auto cigar = batch.read_cigar(i);
  const Payload payload_bytes = payload(batch, i, cigar);
  const std::size_t n = payload_bytes.l_seq;

  // QNAME is NUL-terminated and padded with extra NULs so CIGAR stays 4-byte aligned in memory.
  const std::size_t l_qname_on_disk = name.size() + 1;
  const std::size_t extranul = (4 - l_qname_on_disk % 4) % 4;
  const std::size_t l_qname = l_qname_on_disk + extranul;
  const std::size_t l_data = l_qname + 4 * cigar.size() + payload_bytes.packed_size + n +
                             payload_bytes.aux_before_cg.size() + payload_bytes.aux_after_cg.size();
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
  c.l_qseq = static_cast<std::int32_t>(n);
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
  if (payload_bytes.packed != nullptr) {
    if (payload_bytes.packed_size > 0)
      std::memcpy(p, payload_bytes.packed, payload_bytes.packed_size);
    p += payload_bytes.packed_size;
  } else {
    p = pack_bases(batch.read_seq(i), p);
  }
  if (n > 0) std::memcpy(p, payload_bytes.qual.data(), n);
  p += n;
  for (const auto aux : {payload_bytes.aux_before_cg, payload_bytes.aux_after_cg}) {
    if (!aux.empty()) std::memcpy(p, aux.data(), aux.size());
    p += aux.size();
  }
}

}  // namespace gpp::io::detail
