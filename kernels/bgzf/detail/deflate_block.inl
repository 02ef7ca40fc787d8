// Implementation of deflate_block (kernels/deflate_block.hpp): host and device code.
#pragma once

namespace gpp::kernels::deflate {

namespace detail {

inline constexpr int kCodeLengthSymbols = 19;
inline constexpr int kEndOfBlock = 256;
inline constexpr std::uint32_t kMatchFlag = 0x80000000u;

GPP_HD inline int highest_bit(std::uint32_t x) {  // x > 0
#if defined(__CUDA_ARCH__)
  return 31 - __clz(x);
#else
  return 31 - __builtin_clz(x);
#endif
}

/// RFC 1951 length symbol (257-285), its extra bit count and value, for a length of 3-258.
struct Code {
  int symbol;
  int extra_bits;
  std::uint32_t extra;
};
GPP_HD inline Code length_code(std::uint32_t length) {
  const std::uint32_t l = length - 3;
  if (length == 258) return {285, 0, 0};
  if (l < 8) return {257 + static_cast<int>(l), 0, 0};
  const int b = highest_bit(l);
  const int extra = b - 2;
  return {257 + 4 * (b - 1) + static_cast<int>((l >> extra) & 3), extra, l & ((1u << extra) - 1)};
}
/// RFC 1951 distance symbol (0-29) for a distance of 1-32768.
GPP_HD inline Code distance_code(std::uint32_t distance) {
  const std::uint32_t d = distance - 1;
  if (d < 4) return {static_cast<int>(d), 0, 0};
  const int b = highest_bit(d);
  const int extra = b - 1;
  return {2 * b + static_cast<int>((d >> extra) & 1), extra, d & ((1u << extra) - 1)};
}

#if defined(__CUDACC__)
/// The four bytes at `p` (little-endian), read as the two aligned words around them joined by a
/// funnel shift: two loads instead of four. Reads up to p + 8 (not the value's bytes beyond p + 4),
/// through the read-only cache: the bytes must not change while the kernel runs.
__device__ inline std::uint32_t word_at(const std::uint8_t* p) {
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  const auto* w = reinterpret_cast<const std::uint32_t*>(address & ~std::uintptr_t{3});
  return __funnelshift_r(__ldg(w), __ldg(w + 1), static_cast<unsigned>(address & 3) * 8);
}
#endif

/// The length of the common prefix of a and b, known to be at least `from` and wanted up to
/// `limit`.
GPP_HD inline std::size_t common_length(const std::uint8_t* a, const std::uint8_t* b,
                                        std::size_t from, std::size_t limit) {
  std::size_t length = from;
#if defined(__CUDA_ARCH__)
  // Four bytes at a time (little-endian: the first difference is the lowest byte that differs).
  // The words stay inside the block: it starts word-aligned, and they end before p + 8 <= the
  // compared bytes' end.
  while (length + 8 <= limit) {
    const std::uint32_t x = word_at(a + length);
    const std::uint32_t y = word_at(b + length);
    if (x != y) return length + static_cast<std::size_t>((__ffs(static_cast<int>(x ^ y)) - 1) / 8);
    length += 4;
  }
#else
  while (length + 8 <=
         limit) {  // eight bytes at a time (little-endian: the first difference is the lowest)
    std::uint64_t x = 0;
    std::uint64_t y = 0;
    std::memcpy(&x, a + length, 8);
    std::memcpy(&y, b + length, 8);
    if (x != y) return length + static_cast<std::size_t>(__builtin_ctzll(x ^ y) / 8);
    length += 8;
  }
#endif
  while (length < limit && a[length] == b[length]) ++length;
  return length;
}

/// Least significant bit first, as DEFLATE packs everything but Huffman codes.
struct BitWriter {
  std::uint8_t* out;
  std::size_t capacity;
  std::size_t size = 0;
  std::uint64_t bits = 0;
  int count = 0;
  GPP_HD void put(std::uint32_t value, int n) {
    bits |= static_cast<std::uint64_t>(value) << count;
    count += n;
    while (count >= 8) {
      if (size < capacity) out[size] = static_cast<std::uint8_t>(bits);
      ++size;
      bits >>= 8;
      count -= 8;
    }
  }
  GPP_HD void flush() {
    if (count > 0) put(0, 8 - count);
  }
  GPP_HD bool fits() const { return size <= capacity; }
};

/// Code lengths (at most `limit` bits) for `n` symbols (n <= 286): a Huffman code, lengths over
/// the limit folded back with the Kraft sum repaired by lengthening the shortest possible codes,
/// then lengths handed out by frequency. Unused symbols get 0; when fewer than two symbols are
/// used, two get length 1, so the code is always complete.
GPP_HD inline void build_lengths(const std::uint32_t* freq, int n, int limit,
                                 std::uint8_t* lengths) {
  // Used symbols as keys frequency << 9 | symbol (frequencies stay below 2^17), sorted by a
  // bottom-up merge sort: by frequency, then symbol.
  std::uint32_t keys[2][kLitLenSymbols];
  int m = 0;
  for (int s = 0; s < n; ++s) {
    lengths[s] = 0;
    if (freq[s] != 0) keys[0][m++] = freq[s] << 9 | static_cast<std::uint32_t>(s);
  }
  if (m < 2) {
    const int used = m == 1 ? static_cast<int>(keys[0][0] & 0x1FF) : 0;
    lengths[used] = 1;
    lengths[used == 0 ? 1 : 0] = 1;
    return;
  }
  int from = 0;
  for (int width = 1; width < m; width *= 2, from ^= 1) {
    const std::uint32_t* a = keys[from];
    std::uint32_t* b = keys[from ^ 1];
    for (int lo = 0; lo < m; lo += 2 * width) {
      const int mid = lo + width < m ? lo + width : m;
      const int hi = lo + 2 * width < m ? lo + 2 * width : m;
      int i = lo, j = mid, k = lo;
      while (i < mid && j < hi) b[k++] = a[i] <= a[j] ? a[i++] : a[j++];
      while (i < mid) b[k++] = a[i++];
      while (j < hi) b[k++] = a[j++];
    }
  }
  const std::uint32_t* sorted = keys[from];
  std::uint16_t order[kLitLenSymbols];
  for (int i = 0; i < m; ++i) order[i] = static_cast<std::uint16_t>(sorted[i] & 0x1FF);
  // Two-queue Huffman construction over the sorted leaves; internal nodes come in weight order.
  std::uint32_t weight[2 * kLitLenSymbols];
  std::uint16_t parent[2 * kLitLenSymbols];
  for (int i = 0; i < m; ++i) weight[i] = freq[order[i]];
  int leaf = 0;
  int node = m;
  for (int next = m; next < 2 * m - 1; ++next) {
    int pick[2];
    for (int& p : pick) {
      if (leaf < m && (node >= next || weight[leaf] <= weight[node])) {
        p = leaf++;
      } else {
        p = node++;
      }
    }
    weight[next] = weight[pick[0]] + weight[pick[1]];
    parent[pick[0]] = parent[pick[1]] = static_cast<std::uint16_t>(next);
  }
  // Depths, root first (a parent always has a larger index); `weight` is reused for them.
  std::uint32_t* depth = weight;
  depth[2 * m - 2] = 0;
  for (int i = 2 * m - 3; i >= 0; --i) depth[i] = depth[parent[i]] + 1;
  std::uint32_t per_length[16] = {0};
  for (int i = 0; i < m; ++i)
    ++per_length[depth[i] < static_cast<std::uint32_t>(limit) ? depth[i] : limit];
  std::uint32_t kraft = 0;
  for (int len = 1; len <= limit; ++len) kraft += per_length[len] << (limit - len);
  while (kraft > (1u << limit)) {
    --per_length[limit];
    for (int len = limit - 1; len > 0; --len) {
      if (per_length[len] != 0) {
        --per_length[len];
        per_length[len + 1] += 2;
        break;
      }
    }
    --kraft;
  }
  int i = 0;  // least frequent first: longest codes
  for (int len = limit; len >= 1; --len) {
    for (std::uint32_t c = 0; c < per_length[len]; ++c)
      lengths[order[i++]] = static_cast<std::uint8_t>(len);
  }
}

/// Canonical codes (RFC 1951 3.2.2), bit-reversed for least-significant-first output.
GPP_HD inline void assign_codes(const std::uint8_t* lengths, int n, std::uint16_t* codes) {
  std::uint32_t per_length[16] = {0};
  for (int s = 0; s < n; ++s) ++per_length[lengths[s]];
  per_length[0] = 0;
  std::uint32_t next[16];
  std::uint32_t code = 0;
  for (int bits = 1; bits < 16; ++bits) {
    code = (code + per_length[bits - 1]) << 1;
    next[bits] = code;
  }
  for (int s = 0; s < n; ++s) {
    const int len = lengths[s];
    if (len == 0) continue;
    std::uint32_t c = next[len]++;
    std::uint32_t reversed = 0;
    for (int b = 0; b < len; ++b) {
      reversed = reversed << 1 | (c & 1);
      c >>= 1;
    }
    codes[s] = static_cast<std::uint16_t>(reversed);
  }
}

}  // namespace detail

GPP_HD inline std::uint32_t longest_match(const std::uint8_t* in, std::size_t size, std::size_t pos,
                                          const std::uint16_t (&candidates)[kWays]) {
  const std::uint32_t v = load32(in + pos);
  const std::size_t longest = size - pos < 258 ? size - pos : 258;
  std::uint32_t best = 0;
  std::uint32_t best_distance = 0;
  for (const std::uint16_t candidate : candidates) {
    if (candidate == kNoPosition || pos - candidate > 32768 || load32(in + candidate) != v)
      continue;
    const std::size_t length = detail::common_length(in + candidate, in + pos, 4, longest);
    if (length > best) {
      best = static_cast<std::uint32_t>(length);
      best_distance = static_cast<std::uint32_t>(pos - candidate);
      if (length == longest) break;  // no later candidate can be longer
    }
  }
  return best == 0 ? 0 : best << 16 | best_distance;
}

GPP_HD inline void find_matches(const std::uint8_t* in, std::size_t size, const Scratch& scratch) {
  std::uint64_t* buckets = scratch.buckets;
  for (std::size_t h = 0; h < kHashEntries; ++h) buckets[h] = ~std::uint64_t{0};
  std::size_t pos = 0;
  for (; pos + 4 <= size; ++pos) {
    const std::uint32_t h = hash4(load32(in + pos));
    const std::uint64_t bucket = buckets[h];
    const std::uint16_t candidates[kWays] = {
        static_cast<std::uint16_t>(bucket), static_cast<std::uint16_t>(bucket >> 16),
        static_cast<std::uint16_t>(bucket >> 32), static_cast<std::uint16_t>(bucket >> 48)};
    buckets[h] = bucket << 16 | pos;
    scratch.tokens[pos] = longest_match(in, size, pos, candidates);
  }
  for (; pos < size; ++pos) scratch.tokens[pos] = 0;
}

GPP_HD inline std::uint32_t lazy_token(const std::uint8_t* in, std::size_t size,
                                       const std::uint32_t* matches, std::size_t pos) {
  using namespace detail;
  const std::uint32_t match = matches[pos];
  const std::uint32_t length = match >> 16;
  if (match == 0 || (pos + 1 < size && (matches[pos + 1] >> 16) > length) ||
      (pos + 2 < size && (matches[pos + 2] >> 16) > length + 1)) {
    return in[pos];  // no match, or a literal here and a longer match next
  }
  return kMatchFlag | match;
}

GPP_HD inline std::uint32_t token_span(std::uint32_t token) {
  return (token & detail::kMatchFlag) ? (token >> 16) & 0x1FF : 1;
}

template <typename Count>
GPP_HD inline void count_token(std::uint32_t token, const Scratch& scratch, Count count) {
  using namespace detail;
  if (!(token & kMatchFlag)) {
    count(scratch.lit_freq + token);
    return;
  }
  count(scratch.lit_freq + length_code((token >> 16) & 0x1FF).symbol);
  count(scratch.dist_freq + distance_code(token & 0xFFFF).symbol);
}

GPP_HD inline std::size_t parse_lazy(const std::uint8_t* in, std::size_t size,
                                     const Scratch& scratch) {
  using namespace detail;
  // In place: a token never lies after the position it encodes, nor at one still to be read.
  std::uint32_t* tokens = scratch.tokens;
  for (int k = 0; k < kLitLenSymbols; ++k) scratch.lit_freq[k] = 0;
  for (int k = 0; k < kDistanceSymbols; ++k) scratch.dist_freq[k] = 0;
  std::size_t token_count = 0;
  for (std::size_t pos = 0; pos < size;) {
    const std::uint32_t token = lazy_token(in, size, tokens, pos);
    tokens[token_count++] = token;
    count_token(token, scratch, [](std::uint32_t* counter) { ++*counter; });
    pos += token_span(token);
  }
  ++scratch.lit_freq[kEndOfBlock];
  return token_count;
}

GPP_HD inline void write_block_header(const Scratch& scratch, detail::BitWriter& w) {
  using namespace detail;
  const std::uint32_t* lit_freq = scratch.lit_freq;
  const std::uint32_t* dist_freq = scratch.dist_freq;
  // 1. Codes.
  std::uint8_t* lit_len = scratch.lengths;
  std::uint8_t* dist_len = scratch.lengths + kLitLenSymbols;
  std::uint16_t* lit_code = scratch.codes;
  std::uint16_t* dist_code = scratch.codes + kLitLenSymbols;
  build_lengths(lit_freq, kLitLenSymbols, 15, lit_len);
  build_lengths(dist_freq, kDistanceSymbols, 15, dist_len);
  assign_codes(lit_len, kLitLenSymbols, lit_code);
  assign_codes(dist_len, kDistanceSymbols, dist_code);
  int lit_count = kLitLenSymbols;
  while (lit_count > 257 && lit_len[lit_count - 1] == 0) --lit_count;
  int dist_count = kDistanceSymbols;
  while (dist_count > 1 && dist_len[dist_count - 1] == 0) --dist_count;

  // 2. The code lengths, run-length coded (16: repeat previous 3-6, 17: 3-10 zeros, 18: 11-138).
  std::uint8_t all[kLitLenSymbols + kDistanceSymbols];
  const int total = lit_count + dist_count;
  for (int s = 0; s < lit_count; ++s) all[s] = lit_len[s];
  for (int s = 0; s < dist_count; ++s) all[lit_count + s] = dist_len[s];
  std::uint8_t rle_symbol[kLitLenSymbols + kDistanceSymbols];
  std::uint8_t rle_extra[kLitLenSymbols + kDistanceSymbols];
  int rle_count = 0;
  std::uint32_t cl_freq[kCodeLengthSymbols] = {0};
  auto emit = [&](int symbol, int extra) {
    rle_symbol[rle_count] = static_cast<std::uint8_t>(symbol);
    rle_extra[rle_count++] = static_cast<std::uint8_t>(extra);
    ++cl_freq[symbol];
  };
  for (int i = 0; i < total;) {
    const std::uint8_t value = all[i];
    int run = 1;
    while (i + run < total && all[i + run] == value) ++run;
    i += run;
    if (value == 0) {
      while (run >= 11) {
        const int r = run < 138 ? run : 138;
        emit(18, r - 11);
        run -= r;
      }
      if (run >= 3) {
        emit(17, run - 3);
        run = 0;
      }
    } else {
      emit(value, 0);
      --run;
      while (run >= 3) {
        const int r = run < 6 ? run : 6;
        emit(16, r - 3);
        run -= r;
      }
    }
    for (; run > 0; --run) emit(value, 0);
  }
  std::uint8_t cl_len[kCodeLengthSymbols];
  std::uint16_t cl_code[kCodeLengthSymbols];
  build_lengths(cl_freq, kCodeLengthSymbols, 7, cl_len);
  assign_codes(cl_len, kCodeLengthSymbols, cl_code);
  const std::uint8_t cl_order[kCodeLengthSymbols] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                                     11, 4,  12, 3, 13, 2, 14, 1, 15};
  int cl_count = kCodeLengthSymbols;
  while (cl_count > 4 && cl_len[cl_order[cl_count - 1]] == 0) --cl_count;

  // 3. One final block with dynamic codes: its header.
  w.put(1, 1);  // BFINAL
  w.put(2, 2);  // BTYPE = dynamic Huffman
  w.put(static_cast<std::uint32_t>(lit_count - 257), 5);
  w.put(static_cast<std::uint32_t>(dist_count - 1), 5);
  w.put(static_cast<std::uint32_t>(cl_count - 4), 4);
  for (int k = 0; k < cl_count; ++k) w.put(cl_len[cl_order[k]], 3);
  for (int k = 0; k < rle_count; ++k) {
    const int s = rle_symbol[k];
    w.put(cl_code[s], cl_len[s]);
    if (s == 16) w.put(rle_extra[k], 2);
    if (s == 17) w.put(rle_extra[k], 3);
    if (s == 18) w.put(rle_extra[k], 7);
  }
}

GPP_HD inline std::size_t encode_header(const std::uint8_t* in, std::size_t size,
                                        const Scratch& scratch, detail::BitWriter& w) {
  const std::size_t token_count = parse_lazy(in, size, scratch);
  write_block_header(scratch, w);
  return token_count;
}

template <typename Writer>
GPP_HD inline void put_token(std::uint32_t token, const Scratch& scratch, Writer& w) {
  using namespace detail;
  const std::uint8_t* lit_len = scratch.lengths;
  const std::uint8_t* dist_len = scratch.lengths + kLitLenSymbols;
  const std::uint16_t* lit_code = scratch.codes;
  const std::uint16_t* dist_code = scratch.codes + kLitLenSymbols;
  if (!(token & kMatchFlag)) {
    w.put(lit_code[token], lit_len[token]);
    return;
  }
  const Code length = length_code((token >> 16) & 0x1FF);
  w.put(lit_code[length.symbol], lit_len[length.symbol]);
  w.put(length.extra, length.extra_bits);
  const Code distance = distance_code(token & 0xFFFF);
  w.put(dist_code[distance.symbol], dist_len[distance.symbol]);
  w.put(distance.extra, distance.extra_bits);
}

GPP_HD inline int token_bits(std::uint32_t token, const Scratch& scratch) {
  using namespace detail;
  const std::uint8_t* lit_len = scratch.lengths;
  const std::uint8_t* dist_len = scratch.lengths + kLitLenSymbols;
  if (!(token & kMatchFlag)) return lit_len[token];
  const Code length = length_code((token >> 16) & 0x1FF);
  const Code distance = distance_code(token & 0xFFFF);
  return lit_len[length.symbol] + length.extra_bits + dist_len[distance.symbol] +
         distance.extra_bits;
}

template <typename Writer>
GPP_HD inline void put_end_of_block(const Scratch& scratch, Writer& w) {
  w.put(scratch.codes[detail::kEndOfBlock], scratch.lengths[detail::kEndOfBlock]);
}

GPP_HD inline std::size_t encode_matches(const std::uint8_t* in, std::size_t size,
                                         std::uint8_t* out, std::size_t capacity,
                                         const Scratch& scratch) {
  detail::BitWriter w{out, capacity};
  const std::size_t token_count = encode_header(in, size, scratch, w);
  for (std::size_t t = 0; t < token_count && w.fits(); ++t)
    put_token(scratch.tokens[t], scratch, w);
  put_end_of_block(scratch, w);
  w.flush();
  return w.fits() ? w.size : 0;
}

GPP_HD inline std::size_t deflate_block(const std::uint8_t* in, std::size_t size, std::uint8_t* out,
                                        std::size_t capacity, const Scratch& scratch) {
  find_matches(in, size, scratch);
  return encode_matches(in, size, out, capacity, scratch);
}

}  // namespace gpp::kernels::deflate
