// GATK BAQ; see baq.hpp. The arithmetic follows BAQ.hmm_glocal operation for operation so that
// the doubles, and hence the rounded qualities, are the same.
#include "stages/bqsr/baq.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>

#include "core/cigar.hpp"
#include "stages/bqsr/read_transform.hpp"

namespace gpp::stages::bqsr {

namespace {

constexpr double kGapOpen = 1e-4;  // 10^(-40/10): BaseRecalibrator's BAQ gap open penalty 40
constexpr double kGapExtension = 0.1;
constexpr int kBandWidth = 7;
constexpr int kMinBaseQual = 4;
constexpr double kEM = 0.33333333333;
constexpr double kEI = 0.25;

bool is_acgt(char c) {
  switch (c) {
    case 'A':
    case 'C':
    case 'G':
    case 'T':
    case 'a':
    case 'c':
    case 'g':
    case 't':
      return true;
    default:
      return false;
  }
}

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

const std::array<double, 256>& qual_to_prob() {
  static const std::array<double, 256> table = [] {
    std::array<double, 256> t{};
    for (int i = 0; i < 256; ++i) t[static_cast<std::size_t>(i)] = std::pow(10.0, -i / 10.0);
    return t;
  }();
  return table;
}

/// BAQ.calcEpsilon: emission of read base `read` with quality `qual` against `ref`.
double epsilon(char ref, char read, std::uint8_t qual) {
  if (!is_acgt(ref) || !is_acgt(read)) return 1.0;
  const double p = qual_to_prob()[qual < kMinBaseQual ? kMinBaseQual : qual];
  return lower(ref) == lower(read) ? 1.0 - p : p * kEM;
}

int set_u(int b, int i, int k) {
  int x = i - b;
  x = x > 0 ? x : 0;
  return (k + 1 - x) * 3;
}

}  // namespace

void hmm_glocal(std::string_view ref, std::string_view query, int qstart, int l_query,
                std::span<const std::uint8_t> quals, std::vector<int>& state,
                std::vector<std::uint8_t>& q) {
  const int l_ref = static_cast<int>(ref.size());
  int bw = l_ref > l_query ? l_ref : l_query;
  if (kBandWidth < std::abs(l_ref - l_query)) bw = std::abs(l_ref - l_query) + 3;
  if (bw > kBandWidth) bw = kBandWidth;
  if (bw < std::abs(l_ref - l_query)) bw = std::abs(l_ref - l_query);
  const int bw2 = bw * 2 + 1;
  const std::size_t row = static_cast<std::size_t>(bw2 * 3 + 6);
  std::vector<double> f(static_cast<std::size_t>(l_query + 1) * row, 0.0);
  std::vector<double> b(static_cast<std::size_t>(l_query + 1) * row, 0.0);
  std::vector<double> s(static_cast<std::size_t>(l_query + 2), 0.0);
  auto F = [&](int i) { return f.data() + static_cast<std::size_t>(i) * row; };
  auto B = [&](int i) { return b.data() + static_cast<std::size_t>(i) * row; };
  const double cd = kGapOpen, ce = kGapExtension;
  const double sM = 1.0 / (2 * l_query + 2), sI = sM;
  const double bM = (1 - cd) / l_ref, bI = cd / l_ref;
  double m[9];
  m[0] = (1 - cd - cd) * (1 - sM);
  m[1] = m[2] = cd * (1 - sM);
  m[3] = (1 - ce) * (1 - sI);
  m[4] = ce * (1 - sI);
  m[5] = 0.;
  m[6] = 1 - ce;
  m[7] = 0.;
  m[8] = ce;
  auto qual = [&](int i) { return quals[static_cast<std::size_t>(i)]; };
  auto base = [&](int i) { return query[static_cast<std::size_t>(i)]; };

  // forward
  F(0)[set_u(bw, 0, 0)] = s[0] = 1.;
  {
    double* fi = F(1);
    double sum = 0.;
    const int beg = 1, end = l_ref < bw + 1 ? l_ref : bw + 1;
    for (int k = beg; k <= end; ++k) {
      const double e = epsilon(ref[static_cast<std::size_t>(k - 1)], base(qstart), qual(qstart));
      const int u = set_u(bw, 1, k);
      fi[u + 0] = e * bM;
      fi[u + 1] = kEI * bI;
      sum += fi[u] + fi[u + 1];
    }
    s[1] = sum;
    const int _beg = set_u(bw, 1, beg);
    const int _end = set_u(bw, 1, end) + 2;
    for (int k = _beg; k <= _end; ++k) fi[k] /= sum;
  }
  for (int i = 2; i <= l_query; ++i) {
    double* fi = F(i);
    const double* fi1 = F(i - 1);
    double sum = 0.;
    int beg = 1, end = l_ref;
    const char qyi = base(qstart + i - 1);
    int x = i - bw;
    beg = beg > x ? beg : x;
    x = i + bw;
    end = end < x ? end : x;
    for (int k = beg; k <= end; ++k) {
      const double e = epsilon(ref[static_cast<std::size_t>(k - 1)], qyi, qual(qstart + i - 1));
      const int u = set_u(bw, i, k), v11 = set_u(bw, i - 1, k - 1), v10 = set_u(bw, i - 1, k),
                v01 = set_u(bw, i, k - 1);
      fi[u + 0] = e * (m[0] * fi1[v11 + 0] + m[3] * fi1[v11 + 1] + m[6] * fi1[v11 + 2]);
      fi[u + 1] = kEI * (m[1] * fi1[v10 + 0] + m[4] * fi1[v10 + 1]);
      fi[u + 2] = m[2] * fi[v01 + 0] + m[8] * fi[v01 + 2];
      sum += fi[u] + fi[u + 1] + fi[u + 2];
    }
    s[static_cast<std::size_t>(i)] = sum;
    const int _beg = set_u(bw, i, beg);
    const int _end = set_u(bw, i, end) + 2;
    const double inverse = 1. / sum;
    for (int k = _beg; k <= _end; ++k) fi[k] *= inverse;
  }
  {
    double sum = 0.;
    for (int k = 1; k <= l_ref; ++k) {
      const int u = set_u(bw, l_query, k);
      if (u < 3 || u >= bw2 * 3 + 3) continue;
      sum += F(l_query)[u + 0] * sM + F(l_query)[u + 1] * sI;
    }
    s[static_cast<std::size_t>(l_query + 1)] = sum;
  }
  // backward
  for (int k = 1; k <= l_ref; ++k) {
    const int u = set_u(bw, l_query, k);
    double* bi = B(l_query);
    if (u < 3 || u >= bw2 * 3 + 3) continue;
    bi[u + 0] =
        sM / s[static_cast<std::size_t>(l_query)] / s[static_cast<std::size_t>(l_query + 1)];
    bi[u + 1] =
        sI / s[static_cast<std::size_t>(l_query)] / s[static_cast<std::size_t>(l_query + 1)];
  }
  for (int i = l_query - 1; i >= 1; --i) {
    int beg = 1, end = l_ref;
    double* bi = B(i);
    const double* bi1 = B(i + 1);
    double y = (i > 1) ? 1. : 0.;
    const char qyi1 = base(qstart + i);
    int x = i - bw;
    beg = beg > x ? beg : x;
    x = i + bw;
    end = end < x ? end : x;
    for (int k = end; k >= beg; --k) {
      const int u = set_u(bw, i, k), v11 = set_u(bw, i + 1, k + 1), v10 = set_u(bw, i + 1, k),
                v01 = set_u(bw, i, k + 1);
      const double e =
          (k >= l_ref ? 0 : epsilon(ref[static_cast<std::size_t>(k)], qyi1, qual(qstart + i))) *
          bi1[v11];
      bi[u + 0] = e * m[0] + kEI * m[1] * bi1[v10 + 1] + m[2] * bi[v01 + 2];
      bi[u + 1] = e * m[3] + kEI * m[4] * bi1[v10 + 1];
      bi[u + 2] = (e * m[6] + m[8] * bi[v01 + 2]) * y;
    }
    const int _beg = set_u(bw, i, beg);
    const int _end = set_u(bw, i, end) + 2;
    y = 1. / s[static_cast<std::size_t>(i)];
    for (int k = _beg; k <= _end; ++k) bi[k] *= y;
  }
  // MAP
  for (int i = 1; i <= l_query; ++i) {
    double sum = 0., max = 0.;
    const double* fi = F(i);
    const double* bi = B(i);
    int beg = 1, end = l_ref, max_k = -1;
    int x = i - bw;
    beg = beg > x ? beg : x;
    x = i + bw;
    end = end < x ? end : x;
    for (int k = beg; k <= end; ++k) {
      const int u = set_u(bw, i, k);
      double z;
      sum += (z = fi[u + 0] * bi[u + 0]);
      if (z > max) {
        max = z;
        max_k = (k - 1) << 2 | 0;
      }
      sum += (z = fi[u + 1] * bi[u + 1]);
      if (z > max) {
        max = z;
        max_k = (k - 1) << 2 | 1;
      }
    }
    max /= sum;
    state[static_cast<std::size_t>(qstart + i - 1)] = max_k;
    const int k = static_cast<int>(-4.343 * std::log(1. - max) + .499);
    q[static_cast<std::size_t>(qstart + i - 1)] =
        static_cast<std::uint8_t>(k > 100 ? 99 : (k < kMinBaseQual ? kMinBaseQual : k));
  }
}

bool baq_qualities(std::string_view contig, std::int64_t start0,
                   std::span<const std::uint32_t> cigar, bool leading_hard_clip,
                   bool trailing_hard_clip, std::string_view bases,
                   std::span<const std::uint8_t> quals, std::vector<std::uint8_t>& baq) {
  const int length = static_cast<int>(bases.size());
  // ReadUtils.getFirst/LastInsertionOffset look at the first/last CIGAR element only.
  const std::int64_t first_ins =
      (!leading_hard_clip && !cigar.empty() && cigar_op(cigar.front()) == CigarOp::kInsertion)
          ? cigar_length(cigar.front())
          : 0;
  const std::int64_t last_ins =
      (!trailing_hard_clip && !cigar.empty() && cigar_op(cigar.back()) == CigarOp::kInsertion)
          ? cigar_length(cigar.back())
          : 0;
  std::int64_t end1 = start0;  // 1-based last aligned base
  for (const std::uint32_t packed : cigar) {
    if (consumes_reference(cigar_op(packed))) end1 += cigar_length(packed);
  }
  const std::int64_t read_start = start0 + 1;
  const int offset = kBandWidth / 2;
  const std::int64_t start = std::max<std::int64_t>(read_start - offset - first_ins, 0);
  const std::int64_t stop = end1 + offset + last_ins;
  if (stop > static_cast<std::int64_t>(contig.size())) return false;
  const std::int64_t fetch_start = std::max<std::int64_t>(start, 1);
  const std::string_view ref = contig.substr(static_cast<std::size_t>(fetch_start - 1),
                                             static_cast<std::size_t>(stop - fetch_start + 1));
  const int ref_offset = static_cast<int>(start - read_start);
  // calculateQueryRange: the first to last base of I/M/=/X operations (no soft clips remain).
  int query_start = -1, query_stop = -1, read_i = 0;
  for (const std::uint32_t packed : cigar) {
    const CigarOp op = cigar_op(packed);
    if (op == CigarOp::kSkip) return false;
    if (consumes_query(op)) {
      const int prev = read_i;
      read_i += static_cast<int>(cigar_length(packed));
      if (op != CigarOp::kSoftClip) {
        if (query_start == -1) query_start = prev;
        query_stop = read_i;
      }
    }
  }
  if (query_stop == query_start) return false;
  std::vector<int> state(static_cast<std::size_t>(length), 0);
  baq.assign(static_cast<std::size_t>(length), 0);
  hmm_glocal(ref, bases, query_start, query_stop - query_start, quals, state, baq);
  // Cap: insertions keep their quality; aligned bases take min(raw, BAQ) when the HMM places
  // them where the CIGAR does, else the minimum quality 4.
  int ref_i = 0;
  read_i = 0;
  for (const std::uint32_t packed : cigar) {
    const CigarOp op = cigar_op(packed);
    const int l = static_cast<int>(cigar_length(packed));
    if (op == CigarOp::kSoftClip || op == CigarOp::kInsertion) {
      if (op == CigarOp::kSoftClip) ref_i += l;
      for (int i = read_i; i < read_i + l; ++i)
        baq[static_cast<std::size_t>(i)] = quals[static_cast<std::size_t>(i)];
      read_i += l;
    } else if (op == CigarOp::kDeletion) {
      ref_i += l;
    } else if (consumes_query(op)) {
      for (int i = read_i; i < read_i + l; ++i) {
        const int expected = ref_i - ref_offset + (i - read_i);
        const int st = state[static_cast<std::size_t>(i)];
        const bool indel = (st & 3) != 0;
        const std::uint8_t raw = quals[static_cast<std::size_t>(i)];
        const std::uint8_t bq = baq[static_cast<std::size_t>(i)];
        baq[static_cast<std::size_t>(i)] = (indel || (st >> 2) != expected)
                                               ? static_cast<std::uint8_t>(kMinBaseQual)
                                               : (bq < raw ? bq : raw);
      }
      read_i += l;
      ref_i += l;
    }
  }
  return true;
}

}  // namespace gpp::stages::bqsr
