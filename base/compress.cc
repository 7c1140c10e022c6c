#include "base/compress.h"

#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>

namespace gatehouse {
namespace {

// libdeflate compresses a whole buffer faster than zlib's streaming deflate at the same level
// (docs/BENCHMARKS.md, "libdeflate for the compression") and writes the same format
// (RFC 1950), which zlib's inflate reads back; bodies are always whole buffers here. Its
// compressor state (a few hundred KiB) is allocated once per thread: allocating it per call
// made glibc mmap and munmap it every time.
class ThreadCompressor {
 public:
  ThreadCompressor() : compressor_(libdeflate_alloc_compressor(1)) {}
  ~ThreadCompressor() {
    if (compressor_ != nullptr) libdeflate_free_compressor(compressor_);
  }
  ThreadCompressor(const ThreadCompressor&) = delete;
  ThreadCompressor& operator=(const ThreadCompressor&) = delete;
  libdeflate_compressor* get() { return compressor_; }

 private:
  libdeflate_compressor* const compressor_;
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
  thread_local ThreadCompressor compressor;
  libdeflate_compressor* c = compressor.get();
  if (c == nullptr) return {};  // only on out-of-memory; callers then store the raw body
  std::string out(libdeflate_zlib_compress_bound(c, data.size()), '\0');
  const size_t n = libdeflate_zlib_compress(c, data.data(), data.size(), out.data(), out.size());
  if (n == 0) return {};  // cannot happen with a bound-sized buffer
  out.resize(n);
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
