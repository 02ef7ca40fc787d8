#include "pipeline/known_variant_cursor.hpp"

#include "core/error.hpp"

namespace gpp::pipeline {

namespace {

/// Bases of a contig read at once: dbSNP holds a record every three bases or so, some 10 MB
/// kept per window (the INFO column is not).
constexpr std::int64_t kWindowBases = std::int64_t{1} << 20;
/// Windows read side by side ahead of the calls.
constexpr std::size_t kWindowsAhead = 8;

}  // namespace

KnownVariantCursor::KnownVariantCursor(const io::KnownVariants& source,
                                       std::vector<std::string> contig_names)
    : source_(source), names_(std::move(contig_names)) {}

KnownVariantCursor::~KnownVariantCursor() {
  for (auto& window : ahead_) window.wait();
}

void KnownVariantCursor::read_ahead() {
  const std::string& name = names_[static_cast<std::size_t>(contig_)];
  while (ahead_.size() < kWindowsAhead) {
    const std::int64_t start = next_start_;
    ahead_.push_back(std::async(std::launch::async, [this, &name, start] {
      return source_.window(name, start, start + kWindowBases);
    }));
    next_start_ += kWindowBases;
  }
}

bool KnownVariantCursor::advance_to(std::int64_t position) {
  if (position < current_.start() || position >= next_start_) return false;
  while (!ahead_.empty()) {
    std::future<io::KnownVariantWindow> next = std::move(ahead_.front());
    ahead_.pop_front();
    io::KnownVariantWindow window = next.get();  // its errors are seen here
    if (window.contains(position)) {
      current_ = std::move(window);
      return true;
    }
  }
  return false;
}

void KnownVariantCursor::read_from(std::int32_t contig, std::int64_t position) {
  if (contig < 0 || static_cast<std::size_t>(contig) >= names_.size()) {
    throw Error("internal error: known variants of contig index " + std::to_string(contig));
  }
  for (auto& window : ahead_) window.wait();
  ahead_.clear();
  contig_ = contig;
  current_ = io::KnownVariantWindow{};
  next_start_ = position;
  read_ahead();
}

std::vector<io::KnownVariant> KnownVariantCursor::at(std::int32_t contig, std::int64_t position) {
  if (contig != contig_ || !current_.contains(position)) {
    if (contig != contig_ || !advance_to(position)) {
      read_from(contig, position);
      advance_to(position);  // the first window read ahead starts there
    }
    read_ahead();
  }
  return current_.starting_at(position);
}

}  // namespace gpp::pipeline
