// Records as text for tests that compare two readings of a file: one line per record with its
// name, FLAG, position, qualities and aux bytes.
#pragma once

#include <string>

#include "io/reads/read_batch.hpp"

namespace gpp::test {

inline std::string record_lines(const io::ReadBatch& batch) {
  std::string text;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const auto q = batch.read_qual(i);
    const auto a = batch.read_aux(i);
    text += std::string(batch.read_name(i)) + ' ' + std::to_string(batch.flag[i]) + ' ' +
            std::to_string(batch.pos[i]) + ' ' + std::string(q.begin(), q.end()) + ' ' +
            std::string(a.begin(), a.end()) + '\n';
  }
  return text;
}

}  // namespace gpp::test
