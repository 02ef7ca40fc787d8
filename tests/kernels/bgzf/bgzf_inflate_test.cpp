// The block DEFLATE decoder behind reading BAM on the GPU: every stream must inflate to exactly
// what libdeflate and zlib (independent decoders, and the compressors that wrote the streams)
// say it holds — the BGZF blocks of real BAM files, and streams of every block type from
// libdeflate (levels 0-12), zlib (each strategy, fixed codes among them) and our own encoder;
// a corrupt, cut or mis-sized stream must be reported and never write outside its block; the
// GPU must write the CPU's bytes.
#include "kernels/bgzf/bgzf_inflate.hpp"

#include <gtest/gtest.h>
#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <barrier>
#include <fstream>
#include <iterator>
#include <random>
#include <thread>
#include <vector>

#include "kernels/bgzf/bgzf_deflate.hpp"
#include "kernels/bgzf/detail/crc32.hpp"
#include "kernels/bgzf/detail/inflate_block.hpp"
#include "tests/test_support.hpp"

namespace gpp::kernels {
namespace {

constexpr std::size_t kCanary = 64;  // bytes after each block's output that must stay untouched
constexpr std::uint8_t kCanaryByte = 0xA5;

struct Stream {
  std::vector<std::uint8_t> compressed;
  std::vector<std::uint8_t> contents;
  std::string what;
};

std::vector<std::uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The raw DEFLATE streams of a BGZF file's blocks, with their contents by libdeflate.
std::vector<Stream> bgzf_streams(const std::string& path) {
  const std::vector<std::uint8_t> file = read_file(path);
  libdeflate_decompressor* d = libdeflate_alloc_decompressor();
  std::vector<Stream> streams;
  for (std::size_t at = 0; at + 18 <= file.size();) {
    const std::size_t xlen = file[at + 10] | file[at + 11] << 8;
    const std::size_t bsize =
        (file[at + 16] | file[at + 17] << 8) + 1u;  // the BC subfield comes first
    const std::uint8_t* footer = file.data() + at + bsize - 8;
    const std::uint32_t isize =
        footer[4] | footer[5] << 8 | footer[6] << 16 | static_cast<std::uint32_t>(footer[7]) << 24;
    Stream s;
    s.compressed.assign(file.begin() + static_cast<std::ptrdiff_t>(at + 12 + xlen),
                        file.begin() + static_cast<std::ptrdiff_t>(at + bsize - 8));
    s.contents.resize(isize);
    std::size_t actual = 0;
    EXPECT_EQ(libdeflate_deflate_decompress(d, s.compressed.data(), s.compressed.size(),
                                            s.contents.data(), isize, &actual),
              LIBDEFLATE_SUCCESS);
    s.what = path + " block at byte " + std::to_string(at);
    streams.push_back(std::move(s));
    at += bsize;
  }
  libdeflate_free_decompressor(d);
  return streams;
}

// Contents that stress a decoder: incompressible bytes (stored blocks), long runs (overlapping
// matches at distance 1), far repeats, a skewed alphabet (long codes), tiny and maximal blocks.
std::vector<std::vector<std::uint8_t>> edge_contents() {
  std::mt19937 rng(11);
  std::vector<std::vector<std::uint8_t>> all;
  std::vector<std::uint8_t> random(0xff00);
  for (auto& b : random) b = static_cast<std::uint8_t>(rng());
  all.push_back(random);
  all.push_back(std::vector<std::uint8_t>(0x10000, 'A'));
  all.push_back({});
  all.push_back({42});
  std::vector<std::uint8_t> pattern(0xff00);
  for (std::size_t k = 0; k < pattern.size(); ++k) pattern[k] = "ACGTTGCAACGGT"[k % 13];
  all.push_back(pattern);
  std::vector<std::uint8_t> far(0xff00);  // repeats 32 KiB and 40 KiB back
  for (std::size_t k = 0; k < far.size(); ++k) {
    far[k] = static_cast<std::uint8_t>(k < 32768   ? rng()
                                       : k < 40000 ? far[k - 32768]
                                                   : far[k - 40000]);
  }
  all.push_back(far);
  std::vector<std::uint8_t> skewed(
      0xfff0);  // symbol s about twice as common as s + 1: codes of up to 15 bits
  std::geometric_distribution<int> geometric(0.45);
  for (auto& b : skewed) b = static_cast<std::uint8_t>(std::min(geometric(rng), 255));
  all.push_back(skewed);
  std::vector<std::uint8_t> mixed(0xfe00);  // short matches of every distance among literals
  for (std::size_t k = 0; k < mixed.size(); ++k) {
    mixed[k] = k > 300 && rng() % 3 != 0 ? mixed[k - 1 - rng() % 300]
                                         : static_cast<std::uint8_t>(rng() % 64);
  }
  all.push_back(mixed);
  return all;
}

std::vector<std::uint8_t> libdeflate_compress(const std::vector<std::uint8_t>& in, int level) {
  libdeflate_compressor* c = libdeflate_alloc_compressor(level);
  std::vector<std::uint8_t> out(libdeflate_deflate_compress_bound(c, in.size()));
  out.resize(libdeflate_deflate_compress(c, in.data(), in.size(), out.data(), out.size()));
  libdeflate_free_compressor(c);
  return out;
}

std::vector<std::uint8_t> zlib_compress(const std::vector<std::uint8_t>& in, int level,
                                        int strategy) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, level, Z_DEFLATED, -15, 8, strategy), Z_OK);
  std::vector<std::uint8_t> out(deflateBound(&z, in.size()) + 16);
  z.next_in = const_cast<Bytef*>(in.data());
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// Every edge content through every compressor.
std::vector<Stream> edge_streams() {
  std::vector<Stream> streams;
  const auto contents = edge_contents();
  for (std::size_t c = 0; c < contents.size(); ++c) {
    const std::string name = "edge content " + std::to_string(c);
    for (const int level : {0, 1, 6, 12}) {
      streams.push_back({libdeflate_compress(contents[c], level), contents[c],
                         name + ", libdeflate level " + std::to_string(level)});
    }
    for (const int strategy : {Z_DEFAULT_STRATEGY, Z_FILTERED, Z_HUFFMAN_ONLY, Z_RLE, Z_FIXED}) {
      streams.push_back({zlib_compress(contents[c], 6, strategy), contents[c],
                         name + ", zlib strategy " + std::to_string(strategy)});
    }
    streams.push_back(
        {zlib_compress(contents[c], 9, Z_DEFAULT_STRATEGY), contents[c], name + ", zlib level 9"});
    if (contents[c].size() <= 0xff00) {  // our encoder's limit
      std::vector<std::uint8_t> out(0x10000);
      std::uint32_t out_size = 0;
      const auto size = static_cast<std::uint32_t>(contents[c].size());
      deflate_blocks({.data = contents[c].data(),
                      .stride = 0,
                      .sizes = &size,
                      .count = 1,
                      .out = out.data(),
                      .out_stride = 0,
                      .out_capacity = out.size(),
                      .out_sizes = &out_size},
                     Backend::kCpu);
      if (out_size > 0) {
        out.resize(out_size);
        streams.push_back({out, contents[c], name + ", block encoder"});
      }
    }
  }
  return streams;
}

// A batch of the streams, laid out with gaps: streams back to back after a few bytes each, the
// outputs in reverse order with a canary after each.
struct Batch {
  std::vector<std::uint8_t> in, out;
  std::vector<std::uint64_t> in_offsets, out_offsets;
  std::vector<std::uint32_t> in_sizes, out_sizes;
  std::vector<std::uint32_t> crcs;  ///< each block's contents' CRC-32 (libdeflate's)

  explicit Batch(const std::vector<Stream>& streams) {
    for (const Stream& s : streams) {
      in.resize(in.size() + 5, 0x5A);
      in_offsets.push_back(in.size());
      in_sizes.push_back(static_cast<std::uint32_t>(s.compressed.size()));
      in.insert(in.end(), s.compressed.begin(), s.compressed.end());
      out_sizes.push_back(static_cast<std::uint32_t>(s.contents.size()));
      crcs.push_back(libdeflate_crc32(0, s.contents.data(), s.contents.size()));
    }
    out_offsets.resize(streams.size());
    std::size_t at = 0;
    for (std::size_t b = streams.size(); b-- > 0;) {
      out_offsets[b] = at;
      at += out_sizes[b] + kCanary;
    }
    out.assign(at, kCanaryByte);
  }
  InflateBatch view() {
    return {.data = in.data(),
            .in_offsets = in_offsets.data(),
            .in_sizes = in_sizes.data(),
            .count = in_sizes.size(),
            .out = out.data(),
            .out_offsets = out_offsets.data(),
            .out_sizes = out_sizes.data()};
  }
  /// view() with every block's CRC-32 to be checked where it is inflated.
  InflateBatch checked_view() {
    InflateBatch v = view();
    v.crcs = crcs.data();
    return v;
  }
  std::vector<std::uint8_t> block(std::size_t b) const {
    return {out.begin() + static_cast<std::ptrdiff_t>(out_offsets[b]),
            out.begin() + static_cast<std::ptrdiff_t>(out_offsets[b] + out_sizes[b])};
  }
  bool canary_intact(std::size_t b) const {
    const auto start = out.begin() + static_cast<std::ptrdiff_t>(out_offsets[b] + out_sizes[b]);
    return std::all_of(start, start + kCanary, [](std::uint8_t v) { return v == kCanaryByte; });
  }
};

void expect_inflated(const std::vector<Stream>& streams, Backend backend) {
  Batch batch(streams);
  BlockInflater inflater(backend);
  EXPECT_EQ(inflater.inflate(batch.view()), streams.size());
  for (std::size_t b = 0; b < streams.size(); ++b) {
    EXPECT_TRUE(batch.block(b) == streams[b].contents) << streams[b].what;
    EXPECT_TRUE(batch.canary_intact(b)) << streams[b].what;
  }
}

std::vector<Stream> real_streams() {
  std::vector<Stream> streams;
  for (const char* bam :
       {"real_na12878_chr20_hg19/NA12878_S1.chr20.10_10p1mb.bam",
        "real_na12878_chr20_hg19/HG002_NIST_150bp_downsampled_30x.chr20.10_10p1mb.bam",
        "nfcore_chr22_40kb/test2.paired_end.sorted.bam",
        "gatk_golden/applybqsr/HiSeq.1mb.1RG.2k_lines.alternate.bam"}) {
    auto more = bgzf_streams(test::data_path(bam));
    EXPECT_GT(more.size(), 2u) << bam;
    streams.insert(streams.end(), more.begin(), more.end());
  }
  return streams;
}

TEST(BgzfInflate, RealBamBlocksInflateAsLibdeflateSays) {
  expect_inflated(real_streams(), Backend::kCpu);
}

TEST(BgzfInflate, EveryBlockTypeAndCompressorInflates) {
  expect_inflated(edge_streams(), Backend::kCpu);
}

TEST(BgzfInflate, LanesThatMeetOnlyAtTheirSyncsInflateTogether) {
  // A warp's lanes decode in step and share the writes; nothing orders one lane's writes before
  // another's reads but their syncs (__syncwarp). Here the lanes are threads that meet at a
  // barrier instead: a write read before its sync, or a byte no lane writes, shows.
  std::vector<Stream> streams = edge_streams();
  const auto real = real_streams();
  streams.insert(streams.end(), real.begin(), real.begin() + 4);
  constexpr int kLanes = 4;
  for (const Stream& s : streams) {
    std::vector<std::uint8_t> out(s.contents.size(), 0);
    inflate::Tables tables{};
    std::barrier<> barrier(kLanes);
    std::vector<inflate::Status> status(kLanes);
    std::vector<std::thread> lanes;
    for (int lane = 0; lane < kLanes; ++lane) {
      lanes.emplace_back([&, lane] {
        const inflate::Lanes lanes_{
            lane, kLanes, [](void* b) { static_cast<std::barrier<>*>(b)->arrive_and_wait(); },
            &barrier};
        status[lane] = inflate::inflate_stream(s.compressed.data(), s.compressed.size(), out.data(),
                                               out.size(), tables, lanes_);
        barrier.arrive_and_drop();  // the others may still meet
      });
    }
    for (auto& t : lanes) t.join();
    for (int lane = 0; lane < kLanes; ++lane)
      EXPECT_EQ(status[lane], inflate::Status::kOk) << s.what << ", lane " << lane;
    EXPECT_TRUE(out == s.contents) << s.what;
  }
}

TEST(BgzfInflate, LongCodesDecodeThroughTheCanonicalWalk) {
  // A complete code with one code of each length 1..14 and two of 15: most are longer than the
  // direct table's 10 bits.
  std::uint8_t lengths[16];
  for (int s = 0; s < 15; ++s) lengths[s] = static_cast<std::uint8_t>(s + 1);
  lengths[15] = 15;
  inflate::HuffmanTable<10, 288> table{};
  ASSERT_TRUE(inflate::detail::build_table(table, lengths, 16));
  // Canonical codes: symbol s < 15 is s ones then a zero; symbol 14 is fourteen ones and a zero,
  // symbol 15 fifteen ones. Sent first bit first, i.e. least significant bit first here.
  for (int s = 0; s < 16; ++s) {
    const int ones = s < 15 ? s : 15;
    const std::uint32_t bits = (1u << ones) - 1;  // then a zero bit (if any), then padding
    const std::uint8_t stream[4] = {static_cast<std::uint8_t>(bits),
                                    static_cast<std::uint8_t>(bits >> 8), 0, 0};
    inflate::detail::BitReader in(stream, sizeof stream);
    in.refill();
    EXPECT_EQ(inflate::detail::decode_symbol(table, in), s);
    EXPECT_EQ(in.available, 64 - lengths[s]);
  }
  // An over-subscribed code is refused.
  const std::uint8_t too_many[3] = {1, 1, 1};
  EXPECT_FALSE(inflate::detail::build_table(table, too_many, 3));
}

TEST(BgzfInflate, IncompleteCodesAreRefusedAsZlibAndLibdeflateRefuseThem) {
  inflate::HuffmanTable<8, 32> table{};
  // Part of the code space unused: refused ("invalid distances set" in zlib)...
  const std::uint8_t three_quarters[2] = {1, 2};
  EXPECT_FALSE(inflate::detail::build_table(table, three_quarters, 2));
  const std::uint8_t two_of_four[4] = {2, 0, 2, 0};
  EXPECT_FALSE(inflate::detail::build_table(table, two_of_four, 4));
  const std::uint8_t one_long[3] = {0, 3, 0};
  EXPECT_FALSE(inflate::detail::build_table(table, one_long, 3));
  // ...but for a single one-bit code and an empty code, which both accept.
  const std::uint8_t single[3] = {0, 1, 0};
  EXPECT_TRUE(inflate::detail::build_table(table, single, 3));
  const std::uint8_t empty[3] = {0, 0, 0};
  EXPECT_TRUE(inflate::detail::build_table(table, empty, 3));
  const std::uint8_t complete[3] = {1, 2, 2};
  EXPECT_TRUE(inflate::detail::build_table(table, complete, 3));
}

// fuzz_deflate_stream: a dynamic block whose distance code uses three quarters of its code space
// (zlib: "invalid distances set"; libdeflate refuses it too) inflated to "AAAA" here, data a BGZF
// CRC could not catch. The same block with a single one-bit distance code is valid.
// (tests/data/bad/deflate_stream/make_streams.py wrote both.)
std::vector<Stream> distance_code_streams() {
  const std::vector<std::uint8_t> aaaa = {'A', 'A', 'A', 'A'};
  return {{read_file(test::data_path("bad/deflate_stream/incomplete_distance_code.deflate")), aaaa,
           "incomplete distance code"},
          {read_file(test::data_path("bad/deflate_stream/single_distance_code.deflate")), aaaa,
           "single distance code"}};
}

void expect_only_the_complete_code_inflates(Backend backend) {
  const std::vector<Stream> streams = distance_code_streams();
  ASSERT_EQ(streams[0].compressed.size(), 15u);
  libdeflate_decompressor* d = libdeflate_alloc_decompressor();
  std::vector<std::uint8_t> out(4);
  EXPECT_NE(libdeflate_deflate_decompress(d, streams[0].compressed.data(),
                                          streams[0].compressed.size(), out.data(), 4, nullptr),
            LIBDEFLATE_SUCCESS);
  EXPECT_EQ(libdeflate_deflate_decompress(d, streams[1].compressed.data(),
                                          streams[1].compressed.size(), out.data(), 4, nullptr),
            LIBDEFLATE_SUCCESS);
  libdeflate_free_decompressor(d);
  BlockInflater inflater(backend);
  Batch bad({streams[0]});
  EXPECT_EQ(inflater.inflate(bad.view()), 0u);  // the first bad block: this one
  Batch good({streams[1]});
  EXPECT_EQ(inflater.inflate(good.view()), 1u);  // none bad
  EXPECT_EQ(good.block(0), streams[1].contents);
}

TEST(BgzfInflate, StreamWithAnIncompleteDistanceCodeIsRefused) {
  expect_only_the_complete_code_inflates(Backend::kCpu);
}

TEST(BgzfInflate, BadStreamsAreReportedAndStayInTheirBlock) {
  std::vector<Stream> streams = edge_streams();
  const auto real = real_streams();
  streams.insert(streams.end(), real.begin(), real.begin() + 6);
  std::mt19937 rng(5);
  int reported = 0, total = 0;
  for (const Stream& s : streams) {
    if (s.contents.empty()) continue;
    std::vector<Stream> bad;
    // Cut short, sized one byte too many or too few, and three with a flipped bit.
    bad.push_back({std::vector<std::uint8_t>(
                       s.compressed.begin(),
                       s.compressed.begin() + static_cast<std::ptrdiff_t>(s.compressed.size() / 2)),
                   s.contents, "cut"});
    Stream longer{s.compressed, s.contents, "one more byte expected"};
    longer.contents.push_back(0);
    bad.push_back(longer);
    Stream shorter{s.compressed, s.contents, "one byte fewer expected"};
    shorter.contents.pop_back();
    bad.push_back(shorter);
    for (int k = 0; k < 3; ++k) {
      Stream flipped = s;
      flipped.compressed[rng() % flipped.compressed.size()] ^=
          static_cast<std::uint8_t>(1u << (rng() % 8));
      flipped.what = "flipped bit";
      bad.push_back(flipped);
    }
    Batch batch(bad);
    std::vector<inflate::Tables> tables(1);
    for (std::size_t b = 0; b < bad.size(); ++b) {
      const auto status = inflate::inflate_stream(
          batch.in.data() + batch.in_offsets[b], batch.in_sizes[b],
          batch.out.data() + batch.out_offsets[b], batch.out_sizes[b], tables[0]);
      EXPECT_TRUE(batch.canary_intact(b)) << s.what << ", " << bad[b].what;
      const bool same = batch.block(b) == s.contents;
      // A flipped bit may land in padding or a stored byte; the others must always be caught.
      if (b < 3) {
        EXPECT_NE(status, inflate::Status::kOk) << s.what << ", " << bad[b].what;
      }
      reported += status != inflate::Status::kOk || !same;
      ++total;
    }
  }
  EXPECT_GT(reported, total * 3 / 4) << reported << " of " << total;
}

TEST(BgzfInflate, FirstBadOrUncheckedBlockIsReturned) {
  std::vector<Stream> streams = real_streams();
  streams.resize(12);
  streams[7].compressed.resize(streams[7].compressed.size() / 3);
  Batch batch(streams);
  BlockInflater inflater(Backend::kCpu);
  EXPECT_EQ(inflater.inflate(batch.view()), 7u);
  // A block that inflates but fails the caller's check (a checksum) counts as bad too.
  streams[7] = streams[6];
  Batch again(streams);
  EXPECT_EQ(inflater.inflate(again.view(), [](std::size_t b) { return b != 4 && b != 9; }), 4u);
}

TEST(Crc32, BytesAndJoinedPiecesGiveLibdeflatesCrc) {
  crc32::Table table{};
  for (std::uint32_t b = 0; b < 256; ++b) table.byte[b] = crc32::byte_step(b);
  crc32::fill_powers(table);
  std::mt19937 random(7);
  std::vector<std::uint8_t> bytes(70000);
  for (std::uint8_t& b : bytes) b = static_cast<std::uint8_t>(random());
  for (const std::size_t size : {0, 1, 31, 32, 33, 4096, 65535, 65536, 70000}) {
    const std::uint32_t whole = libdeflate_crc32(0, bytes.data(), size);
    EXPECT_EQ(crc32::update(0, bytes.data(), size, table), whole) << size;
    for (const std::size_t cut : {std::size_t{0}, size / 3, size / 2, size}) {
      const std::uint32_t a = crc32::update(0, bytes.data(), cut, table);
      const std::uint32_t b = crc32::update(0, bytes.data() + cut, size - cut, table);
      EXPECT_EQ(crc32::combine(a, b, size - cut, table), whole) << size << " cut at " << cut;
      EXPECT_EQ(crc32::update(a, bytes.data() + cut, size - cut, table), whole) << size;
    }
  }
}

void expect_checksums_checked(Backend backend) {
  const std::vector<Stream> real = real_streams();
  std::vector<Stream> many;
  while (many.size() < 700) many.insert(many.end(), real.begin(), real.end());
  Batch batch(many);
  BlockInflater inflater(backend);
  EXPECT_EQ(inflater.inflate(batch.checked_view()), many.size());
  for (std::size_t b = 0; b < many.size(); ++b) EXPECT_TRUE(batch.block(b) == many[b].contents);
  // A block whose contents are not those of its CRC-32: the first such is reported.
  batch.crcs[650] ^= 1;
  batch.crcs[400] ^= 0x80000000u;
  EXPECT_EQ(inflater.inflate(batch.checked_view()), 400u);
  // Unchecked, the same blocks inflate.
  EXPECT_EQ(inflater.inflate(batch.view()), many.size());
}

TEST(BgzfInflate, BlocksAreCheckedAgainstTheirCrcs) { expect_checksums_checked(Backend::kCpu); }

using BgzfInflateGpu = ::gpp::test::GpuTest;

TEST_F(BgzfInflateGpu, GpuChecksBlocksAgainstTheirCrcs) { expect_checksums_checked(Backend::kGpu); }

TEST_F(BgzfInflateGpu, GpuWritesTheLibdeflateBytes) {
  expect_inflated(edge_streams(), Backend::kGpu);
  // Enough blocks for every part of the pipeline to be used more than once.
  const std::vector<Stream> real = real_streams();
  std::vector<Stream> many;
  while (many.size() < 6000) many.insert(many.end(), real.begin(), real.end());
  expect_inflated(many, Backend::kGpu);
}

TEST_F(BgzfInflateGpu, GpuRefusesAStreamWithAnIncompleteDistanceCode) {
  expect_only_the_complete_code_inflates(Backend::kGpu);
}

TEST_F(BgzfInflateGpu, GpuReportsTheFirstBadBlock) {
  const std::vector<Stream> real = real_streams();
  std::vector<Stream> many;
  while (many.size() < 3000) many.insert(many.end(), real.begin(), real.end());
  many[2500].compressed[many[2500].compressed.size() / 2] ^= 0x10;
  many[2700].compressed.resize(10);
  Batch batch(many);
  BlockInflater inflater(Backend::kGpu);
  const std::size_t bad = inflater.inflate(batch.view(), [&](std::size_t b) {
    return libdeflate_crc32(0, batch.out.data() + batch.out_offsets[b], batch.out_sizes[b]) ==
           libdeflate_crc32(0, many[b].contents.data(), many[b].contents.size());
  });
  EXPECT_EQ(bad, 2500u);
  for (std::size_t b = 0; b < many.size(); ++b) EXPECT_TRUE(batch.canary_intact(b)) << b;
}

}  // namespace
}  // namespace gpp::kernels
