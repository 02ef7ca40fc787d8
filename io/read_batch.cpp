#include "io/read_batch.hpp"

namespace gpp::io {

void ReadBatch::clear() {
  tid.clear();
  pos.clear();
  end.clear();
  flag.clear();
  mapq.clear();
  bin.clear();
  mate_tid.clear();
  mate_pos.clear();
  tlen.clear();
  read_group.clear();
  library.clear();
  name.clear();
  cigar.clear();
  seq.clear();
  qual.clear();
  aux.clear();
  name_offset.assign(1, 0);
  cigar_offset.assign(1, 0);
  seq_offset.assign(1, 0);
  aux_offset.assign(1, 0);
}

}  // namespace gpp::io
