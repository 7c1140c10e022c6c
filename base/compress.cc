#include "base/compress.h"

#include <zlib.h>

namespace gatehouse {

std::string ZlibCompress(std::string_view data) {
  uLongf size = compressBound(static_cast<uLong>(data.size()));
  std::string out(size, '\0');
  const int rc = compress2(reinterpret_cast<Bytef*>(out.data()), &size,
                           reinterpret_cast<const Bytef*>(data.data()),
                           static_cast<uLong>(data.size()), Z_BEST_SPEED);
  if (rc != Z_OK) return {};  // only on out-of-memory; callers then store the raw body
  out.resize(size);
  return out;
}

Result<std::string> ZlibDecompress(std::string_view data, size_t max_size) {
  z_stream zs{};
  if (inflateInit(&zs) != Z_OK) return Internal("inflateInit failed");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  std::string out;
  out.resize(data.size() * 8 + 1024);
  size_t produced = 0;
  int rc = Z_OK;
  while (rc == Z_OK) {
    if (produced == out.size()) {
      if (out.size() >= max_size) {
        inflateEnd(&zs);
        return InvalidArgument("decompressed body exceeds " + std::to_string(max_size));
      }
      out.resize(std::min(out.size() * 2, max_size));
    }
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
    zs.avail_out = static_cast<uInt>(out.size() - produced);
    rc = inflate(&zs, Z_NO_FLUSH);
    produced = out.size() - zs.avail_out;
  }
  inflateEnd(&zs);
  if (rc != Z_STREAM_END)
    return InvalidArgument("corrupt compressed body (zlib " + std::to_string(rc) + ")");
  out.resize(produced);
  return out;
}

}  // namespace gatehouse
