// zlib compression for stored webhook bodies: GitHub's JSON payloads shrink about 9x, which
// cuts what the inbox writes to the WAL, checkpoints and reads back by as much.
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace gatehouse {

// zlib stream (RFC 1950) at the fastest level (libdeflate's level 1, which zlib reads back).
std::string ZlibCompress(std::string_view data);
// Inverse of ZlibCompress. InvalidArgument on corrupt input or output over `max_size`.
Result<std::string> ZlibDecompress(std::string_view data, size_t max_size = 64 << 20);

}  // namespace gatehouse
