// ReadBatch: N alignment records as columns (structure of arrays).
//
// BAM stores records as an array of structures; GPUs and vector units want one flat array per
// field, so a stage copies to the device only the columns it needs. Fixed-width fields are one
// vector each; variable-length fields are one flat buffer plus an offsets vector of size N + 1
// (record i spans [offset[i], offset[i + 1])). The columns keep everything needed to write each
// record back byte-for-byte; see io/record_codec.hpp.
//
// This header has no HTSlib dependency: stages include it as a plain data type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace gpp::io {

/// Allocator whose resize(n) does not value-initialise: with kDefaultInit it default-initialises
/// (trivial elements are left as they are: the decoders overwrite every element, and zero-filling
/// gigabytes of columns first is wasted work); without it, it constructs nothing at all, for
/// arrays of plain aggregates with default member values (implicit-lifetime types) whose every
/// element is assigned before it is read.
template <typename T, bool kDefaultInit = true>
struct ResizeAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = ResizeAllocator<U, kDefaultInit>;
  };
  using std::allocator<T>::allocator;
  template <typename U>
  void construct(U* p) noexcept {
    if constexpr (kDefaultInit) {
      ::new (static_cast<void*>(p)) U;
    } else {
      static_assert(std::is_trivially_copyable_v<U> && std::is_trivially_destructible_v<U>);
    }
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <typename T>
using DefaultInitAllocator = ResizeAllocator<T, true>;
template <typename T>
using UninitializedAllocator = ResizeAllocator<T, false>;

/// One column of a ReadBatch.
template <typename T>
using Column = std::vector<T, DefaultInitAllocator<T>>;

/// SAM flag bits (SAM specification section 1.4).
namespace flag {
inline constexpr std::uint16_t kPaired = 0x1;
inline constexpr std::uint16_t kProperPair = 0x2;
inline constexpr std::uint16_t kUnmapped = 0x4;
inline constexpr std::uint16_t kMateUnmapped = 0x8;
inline constexpr std::uint16_t kReverse = 0x10;
inline constexpr std::uint16_t kMateReverse = 0x20;
inline constexpr std::uint16_t kFirstOfPair = 0x40;
inline constexpr std::uint16_t kSecondOfPair = 0x80;
inline constexpr std::uint16_t kSecondary = 0x100;
inline constexpr std::uint16_t kQcFail = 0x200;
inline constexpr std::uint16_t kDuplicate = 0x400;
inline constexpr std::uint16_t kSupplementary = 0x800;
}  // namespace flag

struct ReadBatch {
  // --- fixed-width columns, one entry per record ---
  Column<std::int32_t> tid;    ///< reference index; -1 when unplaced
  Column<std::int64_t> pos;    ///< 0-based leftmost position; -1 when unplaced
  Column<std::int64_t> end;    ///< 0-based exclusive end on the reference (pos + 1 if no M/D/N/=/X)
  Column<std::uint16_t> flag;  ///< SAM FLAG
  Column<std::uint8_t> mapq;   ///< MAPQ
  Column<std::uint16_t> bin;   ///< BAM bin, kept as read
  Column<std::int32_t> mate_tid;    ///< RNEXT as an index; -1 when unplaced
  Column<std::int64_t> mate_pos;    ///< PNEXT, 0-based; -1 when unplaced
  Column<std::int64_t> tlen;        ///< TLEN
  Column<std::int32_t> read_group;  ///< index into Header::read_groups(); -1 without RG
  Column<std::int32_t> library;     ///< index into Header::libraries(); -1 without LB

  // --- variable-length columns: flat buffer + offsets (size N + 1) ---
  Column<char> name;  ///< QNAME bytes, no terminating NUL
  Column<std::uint64_t> name_offset;
  Column<std::uint32_t> cigar;  ///< BAM-packed ops: length << 4 | op
  Column<std::uint64_t> cigar_offset;
  Column<char> seq;           ///< one byte per base: a letter of "=ACMGRSVTWYHKDBN"
  Column<std::uint8_t> qual;  ///< Phred values, one per base (0xFF for SAM '*'); offsets = seq's
  Column<std::uint64_t> seq_offset;  ///< shared by seq and qual (length = l_qseq; 0 for SEQ '*')
  Column<std::uint8_t> aux;          ///< raw BAM aux bytes, kept opaque
  Column<std::uint64_t> aux_offset;

  // --- optional: the records' BAM bytes as read (io::ReaderOptions::keep_bam_records) ---
  /// Empty, or for every record the start of its bytes in the uncompressed BAM stream (from
  /// block_size on), for stages that change nothing but FLAG (sort, markdup): the seq, qual and
  /// aux columns are then left empty (their offsets stay {0}); read_qual, read_aux and seq_length
  /// read the bytes, read_seq is unavailable, and writers copy the bytes with FLAG from its
  /// column. A CIGAR held in a CG tag is in the cigar column as usual; read_aux still shows the
  /// tag.
  Column<const std::uint8_t*> bam_record;
  std::vector<std::shared_ptr<const void>> bam_record_owners;  ///< keep the bytes alive

  ReadBatch() { clear(); }

  /// Whether records are kept as BAM bytes (see bam_record).
  bool keeps_bam_records() const { return !bam_record.empty(); }

  std::size_t size() const { return flag.size(); }
  bool empty() const { return flag.empty(); }

  /// Removes all records (offset vectors keep their leading 0).
  void clear();

  /// Appends every record of `other` (its read_group/library indices are kept as they are).
  void append(const ReadBatch& other);

  /// Appends record `i` of `other`.
  void append_row(const ReadBatch& other, std::size_t i);

  /// One record of one of several batches: sources[source], row `row`.
  struct RowRef {
    std::uint32_t source;
    std::uint32_t row;
  };
  /// Appends the records `rows` of `sources`, in that order, copied in parallel (what a merge
  /// of sorted runs gathers: append_row for each, without one thread copying them all).
  void append_rows(std::span<const ReadBatch* const> sources, std::span<const RowRef> rows);

  /// Bytes held by the columns (their sizes, not capacities; kept BAM bytes are not counted).
  std::size_t memory_bytes() const;
  /// What records [first, last) add to memory_bytes() (a batch of columns, not of kept BAM
  /// records), from the offsets at both ends alone.
  std::size_t rows_memory_bytes(std::size_t first, std::size_t last) const {
    return kFixedRowBytes * (last - first) + (name_offset[last] - name_offset[first]) +
           (cigar_offset[last] - cigar_offset[first]) * sizeof(std::uint32_t) +
           (seq_offset[last] - seq_offset[first]) * 2 + (aux_offset[last] - aux_offset[first]);
  }

  /// Reserves room for `records` more records of `bytes_per_record` sequence bases (and as
  /// much quality) on average, so that growing the columns does not copy them.
  void reserve_more(std::size_t records, std::size_t bases_per_record,
                    std::size_t name_bytes_per_record, std::size_t cigar_ops_per_record,
                    std::size_t aux_bytes_per_record);

  std::string_view read_name(std::size_t i) const {
    return {name.data() + name_offset[i], name_offset[i + 1] - name_offset[i]};
  }
  std::span<const std::uint32_t> read_cigar(std::size_t i) const {
    return {cigar.data() + cigar_offset[i], cigar_offset[i + 1] - cigar_offset[i]};
  }
  /// Not for batches that keep BAM records (their bases stay packed in the record bytes).
  std::string_view read_seq(std::size_t i) const {
    return {seq.data() + seq_offset[i], seq_offset[i + 1] - seq_offset[i]};
  }
  std::span<const std::uint8_t> read_qual(std::size_t i) const {
    if (!bam_record.empty()) return {kept_qual(i), seq_length(i)};
    return {qual.data() + seq_offset[i], seq_offset[i + 1] - seq_offset[i]};
  }
  std::span<const std::uint8_t> read_aux(std::size_t i) const {
    if (!bam_record.empty())
      return {kept_qual(i) + seq_length(i), bam_record[i] + 4 + kept_field32(i, 0)};
    return {aux.data() + aux_offset[i], aux_offset[i + 1] - aux_offset[i]};
  }
  std::size_t seq_length(std::size_t i) const {
    return bam_record.empty() ? seq_offset[i + 1] - seq_offset[i] : kept_field32(i, 20);
  }

 private:
  /// The fixed-width columns' and the offsets' bytes per record.
  static constexpr std::size_t kFixedRowBytes =
      sizeof(std::int32_t) * 4 + sizeof(std::int64_t) * 4 + sizeof(std::uint16_t) * 2 + 1 +
      sizeof(std::uint64_t) * 4;
  // Fields of a kept record (little-endian, as on x86-64): block_size at 0, l_read_name at 12,
  // n_cigar_op at 16, l_seq at 20, then name, CIGAR, packed bases, qualities and aux from 36.
  std::uint32_t kept_field32(std::size_t i, std::size_t at) const {
    std::uint32_t v;
    std::memcpy(&v, bam_record[i] + at, 4);
    return v;
  }
  const std::uint8_t* kept_qual(std::size_t i) const {
    const std::uint8_t* r = bam_record[i];
    std::uint16_t n_cigar;
    std::memcpy(&n_cigar, r + 16, 2);
    return r + 36 + r[12] + 4 * std::size_t{n_cigar} + (kept_field32(i, 20) + 1) / 2;
  }
};

}  // namespace gpp::io
