#include "io/genome/plain_fasta.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <fstream>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "io/genome/fasta_index_line.hpp"

namespace gpp::io {

namespace {

// isgraph() in the C locale: what faidx keeps of the bytes it reads.
constexpr std::array<std::uint8_t, 256> kKept = [] {
  std::array<std::uint8_t, 256> kept{};
  for (int c = 0x21; c < 0x7f; ++c) kept[static_cast<std::size_t>(c)] = 1;
  return kept;
}();

}  // namespace

std::unique_ptr<PlainFasta> PlainFasta::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  unsigned char magic[2] = {};
  const bool compressed = ::pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  std::ifstream index(path + ".fai");
  if (compressed || !index) {
    ::close(fd);
    return nullptr;
  }
  // Reference has checked each line already; the first line of a name counts, as in faidx.
  std::unordered_map<std::string, Entry> entries;
  std::string line;
  while (std::getline(index, line)) {
    const std::optional<FastaIndexEntry> entry = parse_fasta_index_line(line);
    if (!entry) {
      ::close(fd);
      return nullptr;
    }
    entries.emplace(std::string(entry->name),
                    Entry{entry->length, entry->offset, entry->line_bases, entry->line_bytes});
  }
  return std::unique_ptr<PlainFasta>(new PlainFasta(path, fd, std::move(entries)));
}

PlainFasta::PlainFasta(std::string path, int fd, std::unordered_map<std::string, Entry> entries)
    : path_(std::move(path)), fd_(fd), entries_(std::move(entries)) {}

PlainFasta::~PlainFasta() { ::close(fd_); }

std::optional<std::string> PlainFasta::fetch(const std::string& contig, std::int64_t start,
                                             std::int64_t end) const {
  const auto found = entries_.find(contig);
  if (found == entries_.end()) return std::nullopt;
  const Entry& e = found->second;
  const auto wanted = static_cast<std::size_t>(end - start);
  std::string bases(wanted, '\0');
  // faidx's seek: the byte of base `start` on a file of full lines.
  std::int64_t offset = e.offset + start / e.line_bases * e.line_bytes + start % e.line_bases;
  // The bytes of the range with its line ends and a little more (at most 64 MiB at a time), read
  // again from where it stopped while bases are missing.
  std::vector<char> buffer(static_cast<std::size_t>(std::min<std::int64_t>(
      (static_cast<std::int64_t>(wanted) / e.line_bases + 2) * e.line_bytes + 64, 64 << 20)));
  std::size_t filled = 0;
  while (filled < wanted) {
    const ssize_t got = ::pread(fd_, buffer.data(), buffer.size(), static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {  // faidx's error, word for word
      throw Error(path_ + ": cannot read " + contig + ":" + std::to_string(start + 1) + "-" +
                  std::to_string(end));
    }
    offset += got;
    for (ssize_t k = 0; k < got && filled < wanted; ++k) {
      const auto c = static_cast<unsigned char>(buffer[static_cast<std::size_t>(k)]);
      bases[filled] = static_cast<char>(c);
      filled += kKept[c];
    }
  }
  return bases;
}

}  // namespace gpp::io
