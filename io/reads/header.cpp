#include "io/reads/header.hpp"

#include <htslib/kstring.h>
#include <htslib/sam.h>

#include "core/error.hpp"

namespace gpp::io {

namespace {

// Value of tag `key` on the `pos`-th line of `type`, or "".
std::string line_tag(sam_hdr_t* h, const char* type, int pos, const char* key) {
  kstring_t ks = KS_INITIALIZE;
  std::string value;
  if (sam_hdr_find_tag_pos(h, type, pos, key, &ks) == 0) value.assign(ks.s, ks.l);
  ks_free(&ks);
  return value;
}

}  // namespace

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
  const int n_rg = sam_hdr_count_lines(h, "RG");
  for (int i = 0; i < n_rg; ++i) {
    ReadGroup rg;
    rg.id = line_tag(h, "RG", i, "ID");
    rg.sample = line_tag(h, "RG", i, "SM");
    rg.library = line_tag(h, "RG", i, "LB");
    rg.platform = line_tag(h, "RG", i, "PL");
    rg.platform_unit = line_tag(h, "RG", i, "PU");
    if (!rg.library.empty()) {
      std::int32_t lib = -1;
      for (std::size_t l = 0; l < libraries_.size(); ++l) {
        if (libraries_[l] == rg.library) lib = static_cast<std::int32_t>(l);
      }
      if (lib < 0) {
        lib = static_cast<std::int32_t>(libraries_.size());
        libraries_.push_back(rg.library);
      }
      rg.library_index = lib;
    }
    read_group_by_id_.emplace(rg.id, static_cast<std::int32_t>(read_groups_.size()));
    read_groups_.push_back(std::move(rg));
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
