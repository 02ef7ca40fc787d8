#include "pipeline/packed_ends.hpp"

#include <cstring>

namespace gpp::pipeline::packed {

namespace markdup = stages::markdup;

namespace {

// Fields go out and come back in one order, each with memcpy (the bytes are unaligned).
class Writer {
 public:
  explicit Writer(char* to) : at_(to) {}
  template <typename T>
  Writer& operator<<(const T& value) {
    std::memcpy(at_, &value, sizeof value);
    at_ += sizeof value;
    return *this;
  }

 private:
  char* at_;
};

class Reader {
 public:
  explicit Reader(const char* from) : at_(from) {}
  template <typename T>
  Reader& operator>>(T& value) {
    std::memcpy(&value, at_, sizeof value);
    at_ += sizeof value;
    return *this;
  }

 private:
  const char* at_;
};

// The fields a fragment end has; 35 bytes.
Writer& put_fragment_fields(Writer& out, const markdup::ReadEnd& e) {
  return out << e.library << e.read1_ref << e.read1_coord << e.orientation << e.read2_ref
             << e.location.tile << e.location.x << e.location.y << e.read_group << e.score
             << e.read1_index;
}

Reader& get_fragment_fields(Reader& in, markdup::ReadEnd& e) {
  return in >> e.library >> e.read1_ref >> e.read1_coord >> e.orientation >> e.read2_ref >>
         e.location.tile >> e.location.x >> e.location.y >> e.read_group >> e.score >>
         e.read1_index;
}

}  // namespace

void put_fragment(const markdup::ReadEnd& end, char* to) {
  Writer out(to);
  put_fragment_fields(out, end);
}

markdup::ReadEnd get_fragment(const char* from) {
  markdup::ReadEnd end;  // mate coordinate, mate index and optical orientation keep -1
  Reader in(from);
  get_fragment_fields(in, end);
  return end;
}

void put_pair(const markdup::ReadEnd& end, char* to) {
  Writer out(to);
  put_fragment_fields(out, end) << end.optical_orientation << end.read2_coord << end.read2_index;
}

markdup::ReadEnd get_pair(const char* from) {
  markdup::ReadEnd end;
  Reader in(from);
  get_fragment_fields(in, end) >> end.optical_orientation >> end.read2_coord >> end.read2_index;
  return end;
}

void put_candidate(const Candidate& candidate, char* to) {
  Writer out(to);
  put_fragment_fields(out, candidate.end) << candidate.flag << candidate.name_length;
}

Candidate get_candidate(const char* from) {
  Candidate candidate;
  Reader in(from);
  get_fragment_fields(in, candidate.end) >> candidate.flag >> candidate.name_length;
  return candidate;
}

void put_kind(const RecordKind& kind, char* to) {
  Writer(to) << kind.library << kind.flag << kind.run;
}

RecordKind get_kind(const char* from) {
  RecordKind kind;
  Reader(from) >> kind.library >> kind.flag >> kind.run;
  return kind;
}

static_assert(sizeof(markdup::ReadEnd::library) + sizeof(markdup::ReadEnd::read1_ref) +
                      sizeof(markdup::ReadEnd::read1_coord) +
                      sizeof(markdup::ReadEnd::orientation) + sizeof(markdup::ReadEnd::read2_ref) +
                      sizeof(markdup::ReadEnd::location) + sizeof(markdup::ReadEnd::read_group) +
                      sizeof(markdup::ReadEnd::score) + sizeof(markdup::ReadEnd::read1_index) ==
                  kFragmentBytes,
              "a fragment end's fields");
static_assert(kFragmentBytes + sizeof(markdup::ReadEnd::optical_orientation) +
                      sizeof(markdup::ReadEnd::read2_coord) +
                      sizeof(markdup::ReadEnd::read2_index) ==
                  kPairBytes,
              "a pair end's fields");

}  // namespace gpp::pipeline::packed
