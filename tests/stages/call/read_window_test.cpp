// ReadWindow: reads kept in the chunks they came in, found by start, dropped from the front,
// and never moved while held (the batches in flight keep pointers to them).
#include "stages/call/read_window.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/stages/call/call_read_builders.hpp"

namespace gpp::stages::call {
namespace {

std::vector<CallRead> chunk_of(std::initializer_list<std::int64_t> starts) {
  std::vector<CallRead> chunk;
  for (const std::int64_t start : starts) {
    CallRead read = testing::read_from_cigar("10M", start);
    read.name = std::to_string(start);
    chunk.push_back(std::move(read));
  }
  return chunk;
}

std::vector<std::int64_t> starts_from(const ReadWindow& window, ReadWindow::Iterator it) {
  std::vector<std::int64_t> starts;
  for (; it != window.end(); ++it) starts.push_back(it->start);
  return starts;
}

TEST(ReadWindow, IteratesAcrossChunksInOrder) {
  ReadWindow window;
  EXPECT_TRUE(window.empty());
  EXPECT_EQ(window.begin(), window.end());
  window.append(chunk_of({1, 5, 5}));
  window.append({});  // adds nothing
  window.append(chunk_of({7}));
  window.append(chunk_of({9, 12}));
  EXPECT_EQ(window.size(), 6u);
  EXPECT_EQ(window.front().start, 1);
  EXPECT_EQ(window.back().start, 12);
  EXPECT_EQ(starts_from(window, window.begin()), (std::vector<std::int64_t>{1, 5, 5, 7, 9, 12}));
}

TEST(ReadWindow, FindsTheFirstReadStartingAtOrAfterAPosition) {
  ReadWindow window;
  window.append(chunk_of({1, 5, 5}));
  window.append(chunk_of({7}));
  window.append(chunk_of({9, 12}));
  EXPECT_EQ(starts_from(window, window.first_starting_at(0)).size(), 6u);
  EXPECT_EQ(starts_from(window, window.first_starting_at(5)),
            (std::vector<std::int64_t>{5, 5, 7, 9, 12}));
  EXPECT_EQ(starts_from(window, window.first_starting_at(6)),
            (std::vector<std::int64_t>{7, 9, 12}));
  EXPECT_EQ(starts_from(window, window.first_starting_at(8)), (std::vector<std::int64_t>{9, 12}));
  EXPECT_EQ(window.first_starting_at(13), window.end());
}

TEST(ReadWindow, DropsFromTheFrontWithoutMovingTheRest) {
  ReadWindow window;
  window.append(chunk_of({1, 5, 5}));
  window.append(chunk_of({7, 8}));
  const CallRead* held = &*window.first_starting_at(7);
  // Reads ending at or before 16 (10M from 1 and 5): the first three; 7 ends at 17.
  const std::size_t done = window.leading([](const CallRead& r) { return r.end() <= 16; });
  EXPECT_EQ(done, 3u);
  window.drop_front(2);
  EXPECT_EQ(window.size(), 3u);
  EXPECT_EQ(window.front().start, 5);
  // The dropped reads of a chunk still held are not found.
  EXPECT_EQ(starts_from(window, window.first_starting_at(0)), (std::vector<std::int64_t>{5, 7, 8}));
  window.drop_front(1);  // the first chunk goes
  window.append(chunk_of({20}));
  EXPECT_EQ(&*window.begin(), held);
  EXPECT_EQ(held->name, "7");
  window.drop_front(10);  // more than held: all
  EXPECT_TRUE(window.empty());
  EXPECT_EQ(window.size(), 0u);
  EXPECT_EQ(window.first_starting_at(0), window.end());
}

}  // namespace
}  // namespace gpp::stages::call
