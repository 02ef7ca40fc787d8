// Giving files' disk space back without waiting for it: closing the last descriptor of a large
// temporary file, or punching a hole in one, frees its blocks, and where the file system discards
// freed blocks as it frees them (ext4 mounted with `discard` without a journal, as on some cloud
// virtual disks) the call waits for the device to trim them — a second per few gigabytes, during
// which the thread that dropped a spilled run does nothing. These functions hand that work to one
// thread of its own, run in the order given; what is still queued when the process ends normally
// is done before it exits.
//
// @code
//   io::close_in_background(fd);                     // the descriptor is not used again
//   io::punch_hole_in_background(fd, 0, 64 << 20);   // `fd` stays the caller's
// @endcode
#pragma once

#include <cstdint>
#include <functional>

namespace gpp::io {

/// Runs `release` on the releasing thread, after everything handed to it before.
void release_in_background(std::function<void()> release);

/// Closes `fd` on the releasing thread; the caller gives it up.
void close_in_background(int fd);

/// Gives back the disk space of bytes [from, from + bytes) of the regular file open for writing
/// as `fd` (FALLOC_FL_PUNCH_HOLE, the file's size kept) on the releasing thread, through a
/// descriptor of its own: `fd` may be closed at once. A file system without holes keeps the
/// space until the file goes; nothing is reported.
void punch_hole_in_background(int fd, std::uint64_t from, std::uint64_t bytes);

/// Waits until everything handed over so far is done.
void wait_for_background_releases();

}  // namespace gpp::io
