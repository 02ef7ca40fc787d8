#include "io/bam/bam_encoding.hpp"

#include <htslib/sam.h>
#include <oneapi/tbb/parallel_for.h>

#include <cstring>

#include "core/prefetch.hpp"
#include "io/bam/bam_bytes.hpp"

namespace gpp::io::detail {

namespace {

constexpr std::size_t kFixedFields = 32;  // refID .. tlen, after block_size

// BAM's n_cigar field has 16 bits: longer CIGARs are stored as "<l_seq>S<ref_len>N" with the
// real operations in a CG:B:I tag (SAM spec 4.2.2), as HTSlib writes them.
constexpr std::size_t kMaxInlineCigar = 0xFFFF;
constexpr std::size_t kCgTagBytes = 2 + 1 + 1 + 4;  // "CG", 'B', 'I', count

bool needs_cg_tag(const ReadBatch& b, std::size_t i) {
  return b.cigar_offset[i + 1] - b.cigar_offset[i] > kMaxInlineCigar;
}

std::size_t record_size(const ReadBatch& b, std::size_t i) {
  if (b.keeps_bam_records()) return 4 + load32(b.bam_record[i]);
  const std::size_t l_seq = b.seq_length(i);
  const std::size_t n_cigar = b.cigar_offset[i + 1] - b.cigar_offset[i];
  const std::size_t cigar_bytes =
      needs_cg_tag(b, i) ? 4 * 2 + kCgTagBytes + 4 * n_cigar : 4 * n_cigar;
  return 4 + kFixedFields + (b.name_offset[i + 1] - b.name_offset[i]) + 1 + cigar_bytes +
         (l_seq + 1) / 2 + l_seq + (b.aux_offset[i + 1] - b.aux_offset[i]);
}

void write_record(const ReadBatch& b, std::size_t i, std::uint8_t* p) {
  if (b.keeps_bam_records()) {  // the bytes as read, with the FLAG of the column
    std::memcpy(p, b.bam_record[i], record_size(b, i));
    std::memcpy(p + 18, &b.flag[i], 2);
    return;
  }
  const std::string_view name = b.read_name(i);
  const auto cigar = b.read_cigar(i);
  const std::string_view seq = b.read_seq(i);
  const auto qual = b.read_qual(i);
  const auto aux = b.read_aux(i);
  const std::size_t total = record_size(b, i);
  store32(p, static_cast<std::uint32_t>(total - 4));
  store32(p + 4, static_cast<std::uint32_t>(b.tid[i]));
  store32(p + 8, static_cast<std::uint32_t>(b.pos[i]));
  p[12] = static_cast<std::uint8_t>(name.size() + 1);
  p[13] = b.mapq[i];
  std::memcpy(p + 14, &b.bin[i], 2);
  const bool cg = needs_cg_tag(b, i);
  const std::uint16_t n_cigar = cg ? 2 : static_cast<std::uint16_t>(cigar.size());
  std::memcpy(p + 16, &n_cigar, 2);
  std::memcpy(p + 18, &b.flag[i], 2);
  store32(p + 20, static_cast<std::uint32_t>(seq.size()));
  store32(p + 24, static_cast<std::uint32_t>(b.mate_tid[i]));
  store32(p + 28, static_cast<std::uint32_t>(b.mate_pos[i]));
  store32(p + 32, static_cast<std::uint32_t>(b.tlen[i]));
  p += 36;
  std::memcpy(p, name.data(), name.size());
  p[name.size()] = 0;
  p += name.size() + 1;
  if (cg) {
    const std::uint32_t ref_length = static_cast<std::uint32_t>(b.end[i] - b.pos[i]);
    store32(p, static_cast<std::uint32_t>(seq.size()) << 4 | BAM_CSOFT_CLIP);
    store32(p + 4, ref_length << 4 | BAM_CREF_SKIP);
    p += 8;
  } else {
    if (!cigar.empty()) std::memcpy(p, cigar.data(), 4 * cigar.size());
    p += 4 * cigar.size();
  }
  const std::size_t n = seq.size();
  p = pack_bases(seq, p);
  if (n > 0) std::memcpy(p, qual.data(), n);
  p += n;
  if (!aux.empty()) std::memcpy(p, aux.data(), aux.size());
  if (cg) {
    p += aux.size();
    const std::uint8_t tag[4] = {'C', 'G', 'B', 'I'};
    std::memcpy(p, tag, 4);
    store32(p + 4, static_cast<std::uint32_t>(cigar.size()));
    std::memcpy(p + 8, cigar.data(), 4 * cigar.size());
  }
}

}  // namespace

template <class Rows>
void bam_record_ends(const Rows& rows, std::vector<std::uint64_t>& ends) {
  const std::size_t n = rows.size();
  ends.resize(n);
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, n, 4096),
                            [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
                              for (std::size_t k = r.begin(); k != r.end(); ++k) {
                                if (k + 16 < n) {
                                  const ReadBatch& b = rows.batch(k + 16);
                                  const std::size_t ahead = rows.row(k + 16);
                                  if (b.keeps_bam_records()) {
                                    if (k + 32 < n)
                                      prefetch(&rows.batch(k + 32).bam_record[rows.row(k + 32)]);
                                    prefetch(b.bam_record[ahead]);
                                  } else {
                                    prefetch(&b.name_offset[ahead], &b.cigar_offset[ahead],
                                             &b.seq_offset[ahead], &b.aux_offset[ahead]);
                                  }
                                }
                                ends[k] = record_size(rows.batch(k), rows.row(k));
                              }
                            });
  std::uint64_t total = 0;
  for (std::size_t k = 0; k < n; ++k) ends[k] = (total += ends[k]);
}

void encode_bam_record(const ReadBatch& batch, std::size_t i, std::uint8_t* dst) {
  write_record(batch, i, dst);
}

template <class Rows>
void prefetch_rows(const Rows& rows, std::size_t k) {
  constexpr std::size_t kFields = 16;  // rows ahead whose fixed fields and offsets are fetched
  constexpr std::size_t kBytes = 8;    // rows ahead whose variable-length bytes are fetched
  // Kept BAM records: a row is its FLAG, its pointer, then its bytes.
  constexpr std::size_t kPointer = 24, kFirstLine = 12, kRest = 6;
  if (rows.batch(k).keeps_bam_records()) {
    if (k + kPointer < rows.size()) {
      const ReadBatch& b = rows.batch(k + kPointer);
      const std::size_t i = rows.row(k + kPointer);
      prefetch(&b.flag[i], &b.bam_record[i]);
    }
    if (k + kFirstLine < rows.size()) {
      prefetch(rows.batch(k + kFirstLine).bam_record[rows.row(k + kFirstLine)]);
    }
    if (k + kRest < rows.size()) {
      const std::uint8_t* r = rows.batch(k + kRest).bam_record[rows.row(k + kRest)];
      const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(r) & ~std::uintptr_t{63};
      const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(r) + 4 + load32(r);
      for (std::uintptr_t line = first + 64; line < end; line += 64) {
        prefetch(reinterpret_cast<const std::uint8_t*>(line));
      }
    }
    return;
  }
  if (k + kFields < rows.size()) {
    const ReadBatch& b = rows.batch(k + kFields);
    const std::size_t i = rows.row(k + kFields);
    prefetch(&b.tid[i], &b.pos[i], &b.flag[i], &b.mapq[i], &b.bin[i], &b.mate_tid[i],
             &b.mate_pos[i], &b.tlen[i], &b.name_offset[i], &b.cigar_offset[i], &b.seq_offset[i],
             &b.aux_offset[i]);
  }
  if (k + kBytes < rows.size()) {
    const ReadBatch& b = rows.batch(k + kBytes);
    const std::size_t i = rows.row(k + kBytes);
    prefetch(b.name.data() + b.name_offset[i], b.cigar.data() + b.cigar_offset[i],
             b.aux.data() + b.aux_offset[i]);
    const std::uint64_t seq = b.seq_offset[i], seq_end = b.seq_offset[i + 1];
    for (std::uint64_t at = seq; at < seq_end; at += 64) {
      prefetch(b.seq.data() + at, b.qual.data() + at);
    }
  }
}

template void bam_record_ends(const RowsOf&, std::vector<std::uint64_t>&);
template void bam_record_ends(const RowsAcross&, std::vector<std::uint64_t>&);
template void prefetch_rows(const RowsOf&, std::size_t);
template void prefetch_rows(const RowsAcross&, std::size_t);

std::vector<std::uint8_t> encode_bam_header(const Header& header) {
  std::vector<std::uint8_t> bytes = {'B', 'A', 'M', 1};
  auto append32 = [&](std::uint32_t v) {
    std::uint8_t b[4];
    store32(b, v);
    bytes.insert(bytes.end(), b, b + 4);
  };
  const std::string text = header.text();
  append32(static_cast<std::uint32_t>(text.size()));
  bytes.insert(bytes.end(), text.begin(), text.end());
  append32(static_cast<std::uint32_t>(header.contigs().size()));
  for (const Contig& contig : header.contigs()) {
    append32(static_cast<std::uint32_t>(contig.name.size() + 1));
    bytes.insert(bytes.end(), contig.name.begin(), contig.name.end());
    bytes.push_back(0);
    append32(static_cast<std::uint32_t>(contig.length));
  }
  return bytes;
}

}  // namespace gpp::io::detail
