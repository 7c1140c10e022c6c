// ErrorSink: the first error any thread of a benchmark phase saw; later ones are only counted.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/mutex.h"
#include "base/status.h"
#include "base/thread_annotations.h"

namespace gatehouse::bench {

class ErrorSink {
 public:
  void Record(const Status& s) {
    MutexLock lock(&mu_);
    if (count_++ == 0) first_ = s;
  }
  // Ok when nothing was recorded; else "<phase>: N errors, first: <message>" with the first's
  // code.
  Status Summary(std::string_view phase) const {
    MutexLock lock(&mu_);
    if (count_ == 0) return Status::Ok();
    return Status(first_.code(), std::string(phase) + ": " + std::to_string(count_) +
                                     " errors, first: " + first_.message());
  }

 private:
  mutable Mutex mu_;
  int64_t count_ GUARDED_BY(mu_) = 0;
  Status first_ GUARDED_BY(mu_);
};

}  // namespace gatehouse::bench
