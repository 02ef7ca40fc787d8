// One raw DEFLATE stream (RFC 1951) inflated by a group of lanes: what a GPU warp runs for each
// BGZF block, thousands of blocks side by side, and what the CPU runs with one lane in tests
// (reading takes libdeflate there). Every lane decodes the same bits into the same state, so the
// warp never diverges; the lanes share the writing: lane 0 writes literals, all lanes write
// their share of a match's bytes, and of the direct decoding tables. Stored, fixed-code and
// dynamic-code blocks, any number of them, into an output of known size (BGZF blocks carry it in
// their footer). Every read and write stays in bounds whatever the input: a stream that is not
// valid DEFLATE, or that does not inflate to exactly the expected size, is reported, never
// followed.
//
// A Huffman code is decoded through a direct table of its codes up to kFastBits bits (symbol and
// length by the next bits of the stream) and, for longer codes, its canonical form (the count of
// codes of each length and the symbols in code order). The tables take 3.5 KiB: the GPU keeps
// them in shared memory.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/host_device.hpp"

namespace gpp::kernels::inflate {

inline constexpr int kMaxCodeLength = 15;

enum class Status : std::uint8_t {
  kOk = 0,
  kBadData,      ///< not valid DEFLATE: bad block type, lengths, code or distance
  kTooLong,      ///< inflates to more bytes than expected
  kTooShort,     ///< ends before the expected bytes
  kTruncated,    ///< needs more input than given
  kBadChecksum,  ///< inflates, but not to the CRC-32 given for it (set by the inflater's check)
};

/// A Huffman code of up to `Symbols` symbols.
template <int FastBits, int Symbols>
struct HuffmanTable {
  static constexpr int kFastBits = FastBits;
  std::uint16_t fast[1 << FastBits];  ///< symbol << 4 | code length; 0: a longer code (or none)
  std::uint16_t count[kMaxCodeLength + 1];  ///< codes of each length
  std::uint16_t symbols[Symbols];           ///< symbols in canonical code order
};

/// The lanes inflating one stream together: a GPU warp; on the CPU one lane, or (in tests)
/// threads that meet at `meet(meeting)`, a barrier, where a warp's lanes meet at __syncwarp.
struct Lanes {
  int index = 0;
  int count = 1;
  void (*meet)(void*) = nullptr;
  void* meeting = nullptr;
  /// Makes each lane's writes so far seen by the others.
  GPP_HD void sync() const {
#if defined(__CUDA_ARCH__)
    if (count > 1) __syncwarp();
#else
    if (meet != nullptr) meet(meeting);
#endif
  }
  GPP_HD bool first() const { return index == 0; }
};

/// The decoding tables of one stream (the code-length code uses `distance`), shared by its lanes.
struct Tables {
  HuffmanTable<10, 288> litlen;
  HuffmanTable<8, 32> distance;
  std::uint8_t lengths[288 + 32];  ///< code lengths as read from a dynamic block's header
};

namespace detail {

/// Bits of the stream, least significant first, with up to 64 of them at hand. Reading past the
/// end gives zero bits and counts the bytes it would have taken.
struct BitReader {
  const std::uint8_t* next;
  const std::uint8_t* end;
  std::uint64_t bits = 0;
  int available = 0;
  std::size_t overrun = 0;  // bytes taken past the end

  GPP_HD BitReader(const std::uint8_t* in, std::size_t size) : next(in), end(in + size) {}
  /// The eight bytes at p, little-endian (the GPU reads the three aligned words around them: up to
  /// p + 12).
  GPP_HD static std::uint64_t load64(const std::uint8_t* p) {
#if defined(__CUDA_ARCH__)
    const auto address = reinterpret_cast<std::uintptr_t>(p);
    const auto* w = reinterpret_cast<const std::uint32_t*>(address & ~std::uintptr_t{3});
    const unsigned shift = static_cast<unsigned>(address & 3) * 8;
    const std::uint32_t w0 = __ldg(w), w1 = __ldg(w + 1), w2 = __ldg(w + 2);
    return __funnelshift_r(w0, w1, shift) |
           static_cast<std::uint64_t>(__funnelshift_r(w1, w2, shift)) << 32;
#else
    std::uint64_t v = 0;
    for (int k = 7; k >= 0; --k) v = v << 8 | p[k];
    return v;
#endif
  }
  /// At least 56 bits at hand afterwards.
  GPP_HD void refill() {
    if (end - next >= 12) {  // the next eight bytes at once: as many whole ones as fit are taken
      bits |= load64(next) << available;
      next += (63 - available) >> 3;
      available |= 56;
      return;
    }
    while (available <= 56) {
      std::uint64_t byte = 0;
      if (next < end) {
        byte = *next++;
      } else {
        ++overrun;
      }
      bits |= byte << available;
      available += 8;
    }
  }
  GPP_HD std::uint32_t peek(int n) const {
    return static_cast<std::uint32_t>(bits & ((std::uint64_t{1} << n) - 1));
  }
  GPP_HD void drop(int n) {
    bits >>= n;
    available -= n;
  }
  GPP_HD std::uint32_t take(int n) {
    const std::uint32_t v = peek(n);
    drop(n);
    return v;
  }
  /// Input bytes the stream used past the end so far (bits at hand are not used yet).
  GPP_HD bool past_end() const { return overrun * 8 > static_cast<std::size_t>(available); }
};

GPP_HD inline std::uint32_t reverse_bits(std::uint32_t code, int length) {
  std::uint32_t r = 0;
  for (int i = 0; i < length; ++i) {
    r = r << 1 | (code & 1);
    code >>= 1;
  }
  return r;
}

/// Builds `table` from the code lengths of its `n` symbols (every lane calls it with the same
/// lengths); false when they over-subscribe the code space or leave part of it unused, except
/// for an empty code and for a single code of one bit (the incomplete codes that zlib and
/// libdeflate accept; their unused bit patterns fail when decoded).
template <int FastBits, int Symbols>
GPP_HD bool build_table(HuffmanTable<FastBits, Symbols>& table, const std::uint8_t* lengths, int n,
                        Lanes lanes = {}) {
  lanes.sync();  // the lengths may be another lane's writes; the old table may still be read
  std::uint16_t count[kMaxCodeLength + 1] = {};
  for (int s = 0; s < n; ++s) ++count[lengths[s]];
  count[0] = 0;
  int left = 1;
  int used = 0;
  for (int len = 1; len <= kMaxCodeLength; ++len) {
    left = (left << 1) - count[len];
    if (left < 0) return false;
    used += count[len];
  }
  if (left > 0 && used != 0 && !(used == 1 && count[1] == 1)) return false;
  // offset[len]: where the symbols of that length start in code order; first[len]: their first
  // code (each length's codes follow the last code of the shorter lengths, doubled).
  std::uint16_t offset[kMaxCodeLength + 2];
  std::uint32_t first[kMaxCodeLength + 1];
  offset[1] = 0;
  first[1] = 0;
  for (int len = 1; len <= kMaxCodeLength; ++len) {
    offset[len + 1] = offset[len] + count[len];
    if (len < kMaxCodeLength) first[len + 1] = (first[len] + count[len]) << 1;
  }
  if (lanes.first()) {
    std::uint16_t next[kMaxCodeLength + 1];
    for (int len = 0; len <= kMaxCodeLength; ++len) {
      table.count[len] = count[len];
      next[len] = len == 0 ? 0 : offset[len];
    }
    for (int s = 0; s < n; ++s) {
      if (lengths[s] != 0) table.symbols[next[lengths[s]]++] = static_cast<std::uint16_t>(s);
    }
  }
  for (int k = lanes.index; k < (1 << FastBits); k += lanes.count) table.fast[k] = 0;
  lanes.sync();
  // The codes of up to FastBits bits, a share of them per lane: every bit pattern that starts with
  // a code (sent first bit first, so the code reversed is the pattern's low bits).
  const int short_codes = offset[FastBits + 1];
  for (int index = lanes.index; index < short_codes; index += lanes.count) {
    int len = 1;
    while (index >= offset[len + 1]) ++len;
    const std::uint32_t code = first[len] + static_cast<std::uint32_t>(index - offset[len]);
    const std::uint16_t entry = static_cast<std::uint16_t>(table.symbols[index] << 4 | len);
    for (std::uint32_t k = reverse_bits(code, len); k < (1u << FastBits); k += 1u << len)
      table.fast[k] = entry;
  }
  lanes.sync();
  return true;
}

/// The next symbol of `table`'s code, or -1 for a bit pattern with no code. Needs 15 bits at hand.
template <int FastBits, int Symbols>
GPP_HD int decode_symbol(const HuffmanTable<FastBits, Symbols>& table, BitReader& in) {
  const std::uint16_t entry = table.fast[in.peek(FastBits)];
  if (entry != 0) {
    in.drop(entry & 15);
    return entry >> 4;
  }
  // A longer code: walk the canonical code one bit at a time (codes are sent first bit first).
  int code = 0, first = 0, index = 0;
  for (int len = 1; len <= kMaxCodeLength; ++len) {
    code |= static_cast<int>(in.bits >> (len - 1) & 1);
    const int count = table.count[len];
    if (code - first < count) {
      in.drop(len);
      return table.symbols[index + code - first];
    }
    index += count;
    first = (first + count) << 1;
    code <<= 1;
  }
  return -1;
}

// Length symbols 257..285 and distance symbols 0..29 (RFC 1951 section 3.2.5): extra bits and base.
GPP_HD inline int length_extra_bits(int s) { return s < 8 || s == 28 ? 0 : (s - 4) >> 2; }
GPP_HD inline int length_base(int s) {
  return s < 8 ? 3 + s : s == 28 ? 258 : ((4 + (s & 3)) << length_extra_bits(s)) + 3;
}
GPP_HD inline int distance_extra_bits(int d) { return d < 4 ? 0 : (d - 2) >> 1; }
GPP_HD inline int distance_base(int d) {
  return d < 4 ? d + 1 : ((2 + (d & 1)) << distance_extra_bits(d)) + 1;
}

/// The code lengths of a dynamic block's header into `t`'s tables.
GPP_HD inline Status read_dynamic_header(BitReader& in, Tables& t, Lanes lanes) {
  in.refill();
  const int litlen_count = static_cast<int>(in.take(5)) + 257;
  const int distance_count = static_cast<int>(in.take(5)) + 1;
  const int code_length_count = static_cast<int>(in.take(4)) + 4;
  if (litlen_count > 286 || distance_count > 30) return Status::kBadData;
  // The code-length code's lengths come in this order of its symbols.
  const std::uint8_t order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
  std::uint8_t code_lengths[19] = {};
  for (int i = 0; i < code_length_count; ++i) {
    in.refill();
    code_lengths[order[i]] = static_cast<std::uint8_t>(in.take(3));
  }
  if (!build_table(t.distance, code_lengths, 19, lanes)) return Status::kBadData;
  const int total = litlen_count + distance_count;
  std::uint8_t previous = 0;
  bool end_of_block_coded = false;
  for (int i = 0; i < total;) {
    in.refill();
    const int symbol = decode_symbol(t.distance, in);
    if (symbol < 0) return Status::kBadData;
    std::uint8_t value = static_cast<std::uint8_t>(symbol);
    int repeat = 1;
    if (symbol == 16) {
      if (i == 0) return Status::kBadData;
      value = previous;
      repeat = 3 + static_cast<int>(in.take(2));
    } else if (symbol == 17) {
      value = 0;
      repeat = 3 + static_cast<int>(in.take(3));
    } else if (symbol == 18) {
      value = 0;
      repeat = 11 + static_cast<int>(in.take(7));
    }
    if (i + repeat > total) return Status::kBadData;
    if (i <= 256 && 256 < i + repeat) end_of_block_coded = value != 0;
    for (; repeat > 0; --repeat, ++i) {
      if (lanes.first()) t.lengths[i] = value;
    }
    previous = value;
  }
  if (!end_of_block_coded) return Status::kBadData;
  if (!build_table(t.litlen, t.lengths, litlen_count, lanes) ||
      !build_table(t.distance, t.lengths + litlen_count, distance_count, lanes)) {
    return Status::kBadData;
  }
  return in.past_end() ? Status::kTruncated : Status::kOk;
}

/// The fixed codes of RFC 1951 section 3.2.6 into `t`'s tables.
GPP_HD inline void build_fixed_tables(Tables& t, Lanes lanes) {
  lanes.sync();  // the old tables' lengths may still be read
  for (int s = lanes.index; s < 288; s += lanes.count)
    t.lengths[s] = s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8;
  build_table(t.litlen, t.lengths, 288, lanes);
  // All 32 five-bit codes, as RFC 1951 defines them; symbols 30 and 31 are refused when decoded.
  for (int s = lanes.index; s < 32; s += lanes.count) t.lengths[s] = 5;
  build_table(t.distance, t.lengths, 32, lanes);
}

/// `length` bytes from `distance` bytes back, a share of them per lane. Where they overlap what
/// they copy (distance < length), byte i repeats byte i % distance of the source: every lane
/// reads only bytes written before the match.
GPP_HD inline void copy_match(std::uint8_t* out, std::size_t pos, int length, int distance,
                              Lanes lanes) {
  std::uint8_t* dst = out + pos;
  const std::uint8_t* src = dst - distance;
  if (lanes.count == 1) {
    for (int i = 0; i < length; ++i) dst[i] = src[i];
    return;
  }
  lanes.sync();  // the bytes copied are other lanes' writes
  if (distance >= length) {
    for (int i = lanes.index; i < length; i += lanes.count) dst[i] = src[i];
  } else {
    for (int i = lanes.index; i < length; i += lanes.count) dst[i] = src[i % distance];
  }
}

/// The symbols of one Huffman-coded block up to its end-of-block code.
GPP_HD inline Status inflate_codes(BitReader& in, const Tables& t, std::uint8_t* out,
                                   std::size_t size, std::size_t& pos, Lanes lanes) {
  for (;;) {
    // At most 15 + 5 + 15 + 13 bits for a length and distance: one refill each.
    in.refill();
    const int symbol = decode_symbol(t.litlen, in);
    if (symbol < 256) {
      if (symbol < 0) return Status::kBadData;
      if (pos == size) return Status::kTooLong;
      if (lanes.first()) out[pos] = static_cast<std::uint8_t>(symbol);
      ++pos;
      continue;
    }
    if (symbol == 256) return in.past_end() ? Status::kTruncated : Status::kOk;
    const int s = symbol - 257;
    if (s >= 29) return Status::kBadData;
    const int length = length_base(s) + static_cast<int>(in.take(length_extra_bits(s)));
    const int d = decode_symbol(t.distance, in);
    if (d < 0 || d >= 30) return Status::kBadData;
    const int distance = distance_base(d) + static_cast<int>(in.take(distance_extra_bits(d)));
    if (static_cast<std::size_t>(distance) > pos) return Status::kBadData;
    if (static_cast<std::size_t>(length) > size - pos) return Status::kTooLong;
    if (in.past_end()) return Status::kTruncated;
    copy_match(out, pos, length, distance, lanes);
    pos += static_cast<std::size_t>(length);
  }
}

/// A stored block's bytes (the header's three bits are read).
GPP_HD inline Status inflate_stored(BitReader& in, std::uint8_t* out, std::size_t size,
                                    std::size_t& pos, Lanes lanes) {
  in.drop(in.available & 7);  // to the byte boundary
  in.refill();
  const std::uint32_t length = in.take(16);
  const std::uint32_t complement = in.take(16);
  if ((length ^ 0xFFFFu) != complement) return Status::kBadData;
  if (length > size - pos) return Status::kTooLong;
  for (std::uint32_t i = 0; i < length; ++i, ++pos) {
    if (in.available < 8) in.refill();
    const auto byte = static_cast<std::uint8_t>(in.take(8));
    if (lanes.first()) out[pos] = byte;
  }
  return in.past_end() ? Status::kTruncated : Status::kOk;
}

}  // namespace detail

/// Inflates the raw DEFLATE stream `in` (`in_size` bytes) into exactly `out_size` bytes at `out`;
/// every lane of `lanes` calls it with the same arguments and gets the same status.
GPP_HD inline Status inflate_stream(const std::uint8_t* in, std::size_t in_size, std::uint8_t* out,
                                    std::size_t out_size, Tables& tables, Lanes lanes = {}) {
  detail::BitReader bits(in, in_size);
  std::size_t pos = 0;
  for (bool last = false; !last;) {
    bits.refill();
    if (bits.past_end()) return Status::kTruncated;
    last = bits.take(1) != 0;
    const std::uint32_t type = bits.take(2);
    Status status = Status::kOk;
    if (type == 0) {
      status = detail::inflate_stored(bits, out, out_size, pos, lanes);
    } else if (type == 1) {
      detail::build_fixed_tables(tables, lanes);
      status = detail::inflate_codes(bits, tables, out, out_size, pos, lanes);
    } else if (type == 2) {
      status = detail::read_dynamic_header(bits, tables, lanes);
      if (status == Status::kOk)
        status = detail::inflate_codes(bits, tables, out, out_size, pos, lanes);
    } else {
      status = Status::kBadData;
    }
    if (status != Status::kOk) return status;
  }
  return pos == out_size ? Status::kOk : Status::kTooShort;
}

}  // namespace gpp::kernels::inflate
