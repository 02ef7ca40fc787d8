#include "io/bam/bam_decoding.hpp"

#include <htslib/sam.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <cstring>
#include <string_view>

#include "core/error.hpp"
#include "core/prefetch.hpp"
#include "io/bam/bam_bin.hpp"
#include "io/bam/bam_bytes.hpp"
#include "io/reads/aux_fields.hpp"

namespace gpp::io::detail {

namespace {

constexpr std::size_t kFixed = 36;  // block_size + the 32 bytes of fixed fields

// Where things are in one record, and their sizes as they will be stored in the columns.
struct Layout {
  std::size_t name_length = 0;  // without the NUL
  std::size_t n_cigar = 0;      // real operations (from CG when present)
  std::size_t l_seq = 0;
  std::size_t aux_length = 0;  // without a moved CG tag
  const std::uint8_t* cigar = nullptr;
  const std::uint8_t* seq = nullptr;
  const std::uint8_t* aux = nullptr;
  const std::uint8_t* aux_end = nullptr;
  const std::uint8_t* cg_field = nullptr;  // the CG tag moved into the CIGAR, if any
  std::size_t cg_size = 0;
  const std::uint8_t* rg = nullptr;  // RG:Z value
};

[[noreturn]] void malformed(const std::string& path, std::size_t record, const char* what) {
  throw Error(path + ": corrupt BAM record " + std::to_string(record + 1) + " of this batch (" +
              what + ")");
}

/// What htslib's bam_read1 and sam_read1 refuse in a record: reference indices outside
/// [-1, contigs), positions below -1, and a placed record whose CIGAR's query length is not its
/// sequence length. (Records that pass these index and sort safely.)
void check_fields(const std::uint8_t* r, const Layout& l, std::int32_t contig_count,
                  const std::string& path, std::size_t index) {
  const auto tid = static_cast<std::int32_t>(load32(r + 4));
  const auto pos = static_cast<std::int32_t>(load32(r + 8));
  const auto mate_tid = static_cast<std::int32_t>(load32(r + 24));
  const auto mate_pos = static_cast<std::int32_t>(load32(r + 28));
  if (tid < -1 || tid >= contig_count) malformed(path, index, "reference index out of range");
  if (mate_tid < -1 || mate_tid >= contig_count) {
    malformed(path, index, "mate reference index out of range");
  }
  if (pos < -1) malformed(path, index, "position out of range");
  if (mate_pos < -1) malformed(path, index, "mate position out of range");
  const bool unmapped = (load16(r + 18) & flag::kUnmapped) != 0;
  if (l.l_seq == 0 || unmapped || l.n_cigar == 0) return;
  const std::uint8_t* cigar = l.cg_field != nullptr ? l.cg_field + 8 : l.cigar;
  std::uint64_t query_length = 0;
  for (std::size_t c = 0; c < l.n_cigar; ++c) {
    const std::uint32_t element = load32(cigar + 4 * c);
    if (bam_cigar_type(bam_cigar_op(element)) & 1) query_length += bam_cigar_oplen(element);
  }
  if (query_length != l.l_seq) malformed(path, index, "CIGAR and sequence lengths differ");
}

Layout lay_out(const std::uint8_t* r, const std::string& path, std::size_t index) {
  Layout l;
  const std::size_t block_size = load32(r);
  const std::uint8_t* end = r + 4 + block_size;
  const std::size_t l_read_name = r[12];
  const std::size_t n_cigar = load16(r + 16);
  l.l_seq = load32(r + 20);
  if (l_read_name == 0) malformed(path, index, "empty read name");
  const std::size_t fixed_and_variable =
      kFixed + l_read_name + 4 * n_cigar + (l.l_seq + 1) / 2 + l.l_seq;
  if (fixed_and_variable > 4 + block_size) malformed(path, index, "fields overrun the record");
  l.name_length = l_read_name - 1;
  l.cigar = r + kFixed + l_read_name;
  l.n_cigar = n_cigar;
  l.seq = l.cigar + 4 * n_cigar;
  l.aux = l.seq + (l.l_seq + 1) / 2 + l.l_seq;
  l.aux_end = end;
  const std::uint8_t* cg = nullptr;
  for (const std::uint8_t* p = l.aux; p < end;) {
    const std::size_t size = aux_field_size(p, end);
    if (size == 0) malformed(path, index, "bad aux field");
    if (p[0] == 'R' && p[1] == 'G' && p[2] == 'Z') l.rg = p + 3;
    if (p[0] == 'C' && p[1] == 'G' && p[2] == 'B') {
      cg = p;
      l.cg_size = size;
    }
    p += size;
  }
  l.aux_length = end - l.aux;
  // HTSlib's bam_tag2cigar: a placed record whose CIGAR is <l_seq>S... and which has CG:B:I
  // with at least as many operations holds its real CIGAR in the tag.
  const std::int32_t tid = static_cast<std::int32_t>(load32(r + 4));
  const std::int32_t pos = static_cast<std::int32_t>(load32(r + 8));
  if (cg != nullptr && n_cigar > 0 && tid >= 0 && pos >= 0 && (cg[3] == 'I' || cg[3] == 'i')) {
    const std::uint32_t first = load32(l.cigar);
    const std::uint32_t cg_length = load32(cg + 4);
    if (bam_cigar_op(first) == BAM_CSOFT_CLIP && bam_cigar_oplen(first) == l.l_seq &&
        cg_length >= n_cigar && cg_length < (1u << 29)) {
      l.cg_field = cg;
      l.n_cigar = cg_length;
      l.aux_length -= l.cg_size;
    }
  }
  return l;
}

}  // namespace

std::size_t find_bam_records(const std::uint8_t* data, std::size_t size, std::size_t max_records,
                             std::vector<std::uint64_t>& starts, const std::string& path) {
  // Each record's length says where the next one starts: a chain of loads, each missing the
  // cache. The bytes ahead are prefetched in a sweep, whatever the record lengths.
  constexpr std::size_t kAhead = 4096;
  constexpr std::size_t kLine = 64;
  std::size_t prefetched = 0;
  std::size_t at = 0;
  std::size_t found = 0;
  while (size - at >= 4 && (max_records == 0 || found < max_records)) {
    for (const std::size_t until = std::min(size, at + kAhead); prefetched < until;
         prefetched += kLine) {
      prefetch(data + prefetched);
    }
    const std::size_t block_size = load32(data + at);
    if (block_size < 32)
      throw Error(path + ": corrupt BAM record (length " + std::to_string(block_size) + ")");
    if (size - at < 4 + block_size) break;
    starts.push_back(at);
    at += 4 + block_size;
    ++found;
  }
  return at;
}

void decode_bam_records(const std::uint8_t* data, std::span<const std::uint64_t> starts,
                        const Header& header, ReadBatch& batch, const std::string& path,
                        bool keep_records, RecordVisitor* visitor) {
  const std::size_t n = starts.size();
  const std::size_t base = batch.size();
  const auto contig_count = static_cast<std::int32_t>(header.contigs().size());
  // Every element is assigned below; the buffer is kept for the next call of this thread.
  // (A reference: inside the parallel loops the name would mean each worker's own buffer.)
  thread_local std::vector<Layout, UninitializedAllocator<Layout>> this_thread_layouts;
  auto& layouts = this_thread_layouts;
  layouts.resize(n);
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, n, 2048),
                            [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
                              for (std::size_t k = r.begin(); k != r.end(); ++k) {
                                layouts[k] = lay_out(data + starts[k], path, k);
                                check_fields(data + starts[k], layouts[k], contig_count, path, k);
                              }
                            });

  // Column offsets: prefix sums continuing from what the batch already holds.
  auto grow_offsets = [&](Column<std::uint64_t>& offsets, auto length_of) {
    offsets.resize(base + n + 1);
    std::uint64_t total = offsets[base];
    for (std::size_t k = 0; k < n; ++k) offsets[base + k + 1] = (total += length_of(layouts[k]));
    return total;
  };
  batch.name.resize(grow_offsets(batch.name_offset, [](const Layout& l) { return l.name_length; }));
  batch.cigar.resize(grow_offsets(batch.cigar_offset, [](const Layout& l) { return l.n_cigar; }));
  if (keep_records) {
    batch.bam_record.resize(base + n);
  } else {
    const std::uint64_t bases =
        grow_offsets(batch.seq_offset, [](const Layout& l) { return l.l_seq; });
    batch.seq.resize(bases);
    batch.qual.resize(bases);
    batch.aux.resize(grow_offsets(batch.aux_offset, [](const Layout& l) { return l.aux_length; }));
  }
  for (auto* column : {&batch.tid, &batch.mate_tid, &batch.read_group, &batch.library})
    column->resize(base + n);
  for (auto* column : {&batch.pos, &batch.end, &batch.mate_pos, &batch.tlen})
    column->resize(base + n);
  batch.flag.resize(base + n);
  batch.bin.resize(base + n);
  batch.mapq.resize(base + n);
  if (visitor != nullptr) visitor->resize(base + n);

  auto decode = [&](std::size_t k) {
    const std::uint8_t* rec = data + starts[k];
    const Layout& l = layouts[k];
    const std::size_t i = base + k;
    batch.tid[i] = static_cast<std::int32_t>(load32(rec + 4));
    batch.pos[i] = static_cast<std::int32_t>(load32(rec + 8));
    batch.mapq[i] = rec[13];
    batch.bin[i] = load16(rec + 14);
    batch.flag[i] = load16(rec + 18);
    batch.mate_tid[i] = static_cast<std::int32_t>(load32(rec + 24));
    batch.mate_pos[i] = static_cast<std::int32_t>(load32(rec + 28));
    batch.tlen[i] = static_cast<std::int32_t>(load32(rec + 32));
    // Empty fields are not copied: a column that is still empty (a batch of unmapped reads has no
    // CIGAR operation) has no memory, and memcpy from or to a null pointer is undefined even for
    // 0 bytes (C17 7.24.1).
    if (l.name_length > 0)
      std::memcpy(batch.name.data() + batch.name_offset[i], rec + kFixed, l.name_length);

    std::uint32_t* cigar = batch.cigar.data() + batch.cigar_offset[i];
    if (l.n_cigar > 0)
      std::memcpy(cigar, l.cg_field != nullptr ? l.cg_field + 8 : l.cigar, 4 * l.n_cigar);
    std::int64_t reference_length = 0;
    for (std::size_t c = 0; c < l.n_cigar; ++c) {
      if (bam_cigar_type(bam_cigar_op(cigar[c])) & 2) reference_length += bam_cigar_oplen(cigar[c]);
    }
    if (l.cg_field != nullptr)
      batch.bin[i] = bam_bin(batch.pos[i], batch.pos[i] + reference_length);
    // bam_endpos: unmapped reads and reads without reference-consuming operations span one base.
    if (batch.flag[i] & flag::kUnmapped) reference_length = 0;
    batch.end[i] = batch.pos[i] + (reference_length == 0 ? 1 : reference_length);

    if (keep_records) {
      batch.bam_record[i] = rec;
    } else {
      unpack_bases(l.seq, l.l_seq, batch.seq.data() + batch.seq_offset[i]);
      if (l.l_seq > 0)
        std::memcpy(batch.qual.data() + batch.seq_offset[i], l.seq + (l.l_seq + 1) / 2, l.l_seq);
      std::uint8_t* aux = batch.aux.data() + batch.aux_offset[i];
      if (l.cg_field == nullptr) {
        if (l.aux_length > 0) std::memcpy(aux, l.aux, l.aux_length);
      } else {  // everything but the CG field, in order
        const std::size_t before = l.cg_field - l.aux;
        const std::size_t after = l.aux_end - l.cg_field - l.cg_size;
        if (before > 0) std::memcpy(aux, l.aux, before);
        if (after > 0) std::memcpy(aux + before, l.cg_field + l.cg_size, after);
      }
    }

    std::int32_t read_group = -1;
    if (l.rg != nullptr && !header.read_groups().empty()) {
      read_group = header.read_group_index(reinterpret_cast<const char*>(l.rg));
    }
    batch.read_group[i] = read_group;
    batch.library[i] = read_group < 0 ? -1 : header.read_groups()[read_group].library_index;
  };
  // The visitor sees each step of records right after they are decoded, while they are in cache.
  constexpr std::size_t kVisitStep = 256;
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, n, 1024),
                            [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
                              for (std::size_t step = r.begin(); step < r.end();
                                   step += kVisitStep) {
                                const std::size_t step_end = std::min(r.end(), step + kVisitStep);
                                for (std::size_t k = step; k != step_end; ++k) decode(k);
                                if (visitor != nullptr)
                                  visitor->visit(batch, header, base + step, base + step_end);
                              }
                            });
}

}  // namespace gpp::io::detail
