// Reader of the PairHMM batch text format (see pairhmm_batch_file.hpp).
#include "io/text/pairhmm_batch_file.hpp"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/fields.hpp"

namespace gpp::io {

namespace {

class LineReader {
 public:
  LineReader(const std::string& text, const std::string& name) : text_(text), name_(name) {}

  /// The next line without its end-of-line characters; false at the end of the text.
  bool next(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    std::size_t end = text_.find('\n', pos_);
    if (end == std::string::npos) end = text_.size();
    line = std::string_view(text_).substr(pos_, end - pos_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos_ = end + 1;
    ++number_;
    return true;
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(name_ + ":" + std::to_string(number_) + ": " + what);
  }

  /// Like next(), failing with a message when the text ends inside a record.
  std::string_view require(const char* what, std::size_t remaining) {
    std::string_view line;
    if (!next(line)) {
      throw Error(name_ + ":" + std::to_string(number_) + ": the file ends inside a record (" +
                  std::to_string(remaining) + " more " + what + " lines expected)");
    }
    return line;
  }

 private:
  const std::string& text_;
  const std::string& name_;
  std::size_t pos_ = 0;
  std::size_t number_ = 0;
};

bool is_blank(std::string_view line) {
  return line.find_first_not_of(" \t") == std::string_view::npos;
}

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i == line.size()) break;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    fields.push_back(line.substr(start, i - start));
  }
  return fields;
}

void check_bases(const LineReader& in, std::string_view bases, const char* what) {
  for (char c : bases) {
    switch (c | 0x20) {
      case 'a':
      case 'c':
      case 'g':
      case 't':
      case 'n':
        continue;
      default:
        break;
    }
    in.fail(std::string(what) + " has a base other than A, C, G, T, N: '" +
            printable(std::string_view(&c, 1)) + "'");
  }
}

void phred(const LineReader& in, std::string_view text, const char* what,
           std::vector<std::uint8_t>& out) {
  out.resize(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 33 || c > 126) {
      in.fail(std::string(what) + " qualities are not Phred+33 (character code " +
              std::to_string(c) + ")");
    }
    out[i] = static_cast<std::uint8_t>(c - 33);
  }
}

std::uint32_t count_field(const LineReader& in, std::string_view field) {
  std::uint32_t value = 0;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc() || end != field.data() + field.size() || value == 0) {
    in.fail("expected a record header 'R H' (positive read and haplotype counts), found '" +
            printable(field) + "'");
  }
  return value;
}

}  // namespace

void parse_pairhmm_batch(const std::string& text, const std::string& name,
                         PairHmmRecordSink& batch) {
  batch.clear();
  LineReader in(text, name);
  std::vector<std::uint8_t> quals, ins, del, gcp;
  std::string_view line;
  while (in.next(line)) {
    if (is_blank(line)) continue;
    const auto header = split_fields(line);
    if (header.size() != 2)
      in.fail("expected a record header 'R H', found '" + printable(line) + "'");
    const std::uint32_t reads = count_field(in, header[0]);
    const std::uint32_t haplotypes = count_field(in, header[1]);
    for (std::uint32_t r = 0; r < reads; ++r) {
      const auto fields = split_fields(in.require("read", reads - r));
      if (fields.size() != 5) {
        in.fail("expected 5 fields 'read qual ins del gcp', found " +
                std::to_string(fields.size()));
      }
      const std::size_t length = fields[0].size();
      for (int f = 1; f < 5; ++f) {
        if (fields[f].size() != length) {
          in.fail("the read and its quality fields differ in length (" + std::to_string(length) +
                  " and " + std::to_string(fields[f].size()) + ")");
        }
      }
      check_bases(in, fields[0], "the read");
      phred(in, fields[1], "base", quals);
      phred(in, fields[2], "insertion", ins);
      phred(in, fields[3], "deletion", del);
      phred(in, fields[4], "gap-continuation", gcp);
      batch.add_read(fields[0], quals, ins, del, gcp);
    }
    for (std::uint32_t h = 0; h < haplotypes; ++h) {
      const auto fields = split_fields(in.require("haplotype", haplotypes - h));
      if (fields.size() != 1) {
        in.fail("expected one haplotype per line, found " + std::to_string(fields.size()) +
                " fields");
      }
      check_bases(in, fields[0], "the haplotype");
      batch.add_haplotype(fields[0]);
    }
    batch.end_group();
  }
}

void read_pairhmm_batch_file(const std::string& path, PairHmmRecordSink& batch) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error(path + ": a directory, not a batch file");
  std::ifstream file(path, std::ios::binary);
  if (!file) throw Error(path + ": cannot open the batch file");
  std::ostringstream text;
  text << file.rdbuf();
  if (file.bad()) throw Error(path + ": read error");
  parse_pairhmm_batch(text.str(), path, batch);
}

}  // namespace gpp::io
