#include "base/compress.h"

#include <zlib.h>

#include <algorithm>

namespace gatehouse {
namespace {

// zlib's deflate state is about 256 KiB. Allocating it per call made glibc mmap and munmap it
// every time: page faults plus a TLB shootdown on every core, per webhook. Each thread keeps
// one stream and resets it instead.
class ThreadDeflater {
 public:
  ThreadDeflater() { ok_ = deflateInit(&zs_, Z_BEST_SPEED) == Z_OK; }
  ~ThreadDeflater() {
    if (ok_) deflateEnd(&zs_);
  }
  z_stream* stream() { return ok_ && deflateReset(&zs_) == Z_OK ? &zs_ : nullptr; }

 private:
  z_stream zs_{};
  bool ok_ = false;
};

class ThreadInflater {
 public:
  ThreadInflater() { ok_ = inflateInit(&zs_) == Z_OK; }
  ~ThreadInflater() {
    if (ok_) inflateEnd(&zs_);
  }
  z_stream* stream() { return ok_ && inflateReset(&zs_) == Z_OK ? &zs_ : nullptr; }

 private:
  z_stream zs_{};
  bool ok_ = false;
};

}  // namespace

std::string ZlibCompress(std::string_view data) {
  thread_local ThreadDeflater deflater;
  z_stream* zs = deflater.stream();
  if (zs == nullptr) return {};  // only on out-of-memory; callers then store the raw body
  std::string out(deflateBound(zs, static_cast<uLong>(data.size())), '\0');
  zs->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs->avail_in = static_cast<uInt>(data.size());
  zs->next_out = reinterpret_cast<Bytef*>(out.data());
  zs->avail_out = static_cast<uInt>(out.size());
  if (deflate(zs, Z_FINISH) != Z_STREAM_END) return {};
  out.resize(out.size() - zs->avail_out);
  return out;
}

Result<std::string> ZlibDecompress(std::string_view data, size_t max_size) {
  thread_local ThreadInflater inflater;
  z_stream* zs = inflater.stream();
  if (zs == nullptr) return Internal("inflate state unavailable");
  zs->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs->avail_in = static_cast<uInt>(data.size());
  std::string out;
  out.resize(std::min(data.size() * 8 + 1024, max_size));
  size_t produced = 0;
  int rc = Z_OK;
  while (rc == Z_OK) {
    if (produced == out.size()) {
      if (out.size() >= max_size) {
        return InvalidArgument("decompressed body exceeds " + std::to_string(max_size));
      }
      out.resize(std::min(out.size() * 2, max_size));
    }
    zs->next_out = reinterpret_cast<Bytef*>(out.data() + produced);
    zs->avail_out = static_cast<uInt>(out.size() - produced);
    rc = inflate(zs, Z_NO_FLUSH);
    produced = out.size() - zs->avail_out;
  }
  if (rc != Z_STREAM_END) {
    return InvalidArgument("corrupt compressed body (zlib " + std::to_string(rc) + ")");
  }
  out.resize(produced);
  return out;
}

}  // namespace gatehouse
