// A one-dimensional array parameter in PostgreSQL's binary format (array_recv), sent as a
// binary PgParam. The SQL casts the parameter ($n::text[], ::bytea[], ::int8[]) so the server
// knows its type, and the element type written here must be that type's. Values are copied as
// bytes: nothing is ever escaped or spliced into SQL. Used to send a whole batch of rows in one
// statement (`unnest($1::text[], $2::int8[], ...)`).
#pragma once

#include <arpa/inet.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "store/postgres/pg_conn.h"

namespace gatehouse::postgres {

class BinaryArray {
 public:
  static constexpr uint32_t kInt8 = 20, kText = 25, kBytea = 17;

  explicit BinaryArray(uint32_t element_oid) : oid_(element_oid) {}

  void Add(std::string_view bytes) {
    Put32(static_cast<uint32_t>(bytes.size()));
    elements_.append(bytes.data(), bytes.size());
    ++count_;
  }
  void AddInt(int64_t v) {
    Put32(8);
    const uint64_t u = static_cast<uint64_t>(v);
    Put32(static_cast<uint32_t>(u >> 32));
    Put32(static_cast<uint32_t>(u));
    ++count_;
  }
  void AddNull() {
    Put32(0xFFFFFFFFu);  // length -1
    has_null_ = true;
    ++count_;
  }
  size_t size() const { return count_; }

  PgParam Param() const {
    std::string out;
    out.reserve(20 + elements_.size());
    auto put = [&out](uint32_t v) {
      const uint32_t n = htonl(v);
      out.append(reinterpret_cast<const char*>(&n), 4);
    };
    put(1);  // dimensions
    put(has_null_ ? 1 : 0);
    put(oid_);
    put(static_cast<uint32_t>(count_));
    put(1);  // lower bound
    out += elements_;
    return PgParam::Bytes(out);
  }

 private:
  void Put32(uint32_t v) {
    const uint32_t n = htonl(v);
    elements_.append(reinterpret_cast<const char*>(&n), 4);
  }

  uint32_t oid_;
  std::string elements_;
  size_t count_ = 0;
  bool has_null_ = false;
};

}  // namespace gatehouse::postgres
