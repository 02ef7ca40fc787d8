#include "io/reads/header.hpp"

#include <htslib/kstring.h>
#include <htslib/sam.h>

#include <algorithm>

#include "core/error.hpp"
#include "core/fields.hpp"

namespace gpp::io {

namespace {

// Every @RG line of the header text, in order. (HTSlib's line API shows only the first of two
// lines with one ID.)
std::vector<ReadGroup> read_group_lines(sam_hdr_t* h) {
  std::vector<ReadGroup> lines;
  const char* text = sam_hdr_str(h);
  if (text == nullptr) return lines;
  std::string_view rest(text);
  while (!rest.empty()) {
    const std::size_t eol = std::min(rest.find('\n'), rest.size());
    const std::string_view line = rest.substr(0, eol);
    rest.remove_prefix(std::min(eol + 1, rest.size()));
    if (!line.starts_with("@RG\t")) continue;
    ReadGroup rg;
    for (auto& [key, value] : header_line_tags(line)) {
      if (key == "ID") rg.id = std::move(value);
      if (key == "SM") rg.sample = std::move(value);
      if (key == "LB") rg.library = std::move(value);
      if (key == "PL") rg.platform = std::move(value);
      if (key == "PU") rg.platform_unit = std::move(value);
    }
    lines.push_back(std::move(rg));
  }
  return lines;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> header_line_tags(std::string_view line) {
  std::vector<std::pair<std::string, std::string>> tags;
  const std::vector<std::string_view> fields = split_fields(line, '\t');
  for (std::size_t k = 1; k < fields.size(); ++k) {  // after the record type
    if (fields[k].size() >= 3 && fields[k][2] == ':') {
      tags.emplace_back(std::string(fields[k].substr(0, 2)), std::string(fields[k].substr(3)));
    }
  }
  return tags;
}

Header::Header(sam_hdr_t* owned) : header_(owned, [](sam_hdr_t* h) { sam_hdr_destroy(h); }) {
  index_lines();
}

void Header::index_lines() {
  contigs_.clear();
  read_groups_.clear();
  libraries_.clear();
  read_group_by_id_.clear();
  sam_hdr_t* h = header_.get();
  if (h == nullptr) return;
  const int n_targets = sam_hdr_nref(h);
  contigs_.reserve(n_targets);
  for (int tid = 0; tid < n_targets; ++tid) {
    contigs_.push_back(
        {sam_hdr_tid2name(h, tid), static_cast<std::int64_t>(sam_hdr_tid2len(h, tid))});
  }
  for (ReadGroup& rg : read_group_lines(h)) {
    if (!rg.library.empty()) {
      const auto known = std::find(libraries_.begin(), libraries_.end(), rg.library);
      rg.library_index = static_cast<std::int32_t>(known - libraries_.begin());
      if (known == libraries_.end()) libraries_.push_back(rg.library);
    }
    const auto [at, added] =
        read_group_by_id_.emplace(rg.id, static_cast<std::int32_t>(read_groups_.size()));
    if (added) {
      read_groups_.push_back(std::move(rg));
    } else {
      read_groups_[static_cast<std::size_t>(at->second)] = std::move(rg);  // the last line wins
    }
  }
}

std::int32_t Header::contig_index(std::string_view name) const {
  if (!header_) return -1;
  return sam_hdr_name2tid(header_.get(), std::string(name).c_str());
}

std::int32_t Header::read_group_index(std::string_view id) const {
  const auto it = read_group_by_id_.find(id);
  return it == read_group_by_id_.end() ? -1 : it->second;
}

Header Header::from_text(const std::string& text) {
  sam_hdr_t* h = sam_hdr_parse(text.size(), text.c_str());
  if (h == nullptr) throw Error("malformed SAM header text");
  return Header(h);
}

Header Header::clone() const {
  if (!header_) return Header();
  sam_hdr_t* copy = sam_hdr_dup(header_.get());
  if (copy == nullptr) throw Error("cannot copy a SAM header (out of memory)");
  return Header(copy);
}

void Header::add_program(const std::string& name, const std::string& version,
                         const std::string& command_line) {
  if (sam_hdr_add_pg(header_.get(), name.c_str(), "VN", version.c_str(), "CL", command_line.c_str(),
                     nullptr) != 0) {
    throw Error("cannot add the @PG line to the SAM header");
  }
}

void Header::set_sort_order(const std::string& sort_order) {
  sam_hdr_t* h = header_.get();
  int status = 0;
  if (sam_hdr_count_lines(h, "HD") <= 0) {
    status = sam_hdr_add_line(h, "HD", "VN", SAM_FORMAT_VERSION, "SO", sort_order.c_str(), nullptr);
  } else {
    status = sam_hdr_update_hd(h, "SO", sort_order.c_str());
  }
  if (status != 0) throw Error("cannot set the sort order in the SAM header");
}

std::string Header::sort_order() const {
  kstring_t ks = KS_INITIALIZE;
  std::string value = "unknown";
  if (header_ && sam_hdr_find_tag_hd(header_.get(), "SO", &ks) == 0) value.assign(ks.s, ks.l);
  ks_free(&ks);
  return value;
}

std::string Header::text() const {
  if (!header_) return "";
  const char* s = sam_hdr_str(header_.get());
  return s == nullptr ? "" : std::string(s, sam_hdr_length(header_.get()));
}

}  // namespace gpp::io
