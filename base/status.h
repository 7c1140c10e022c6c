// Status and Result<T>: how every fallible operation in gatehouse reports failure.
//
// No exceptions cross module boundaries. A function that can fail returns a Status (or a
// Result<T> carrying either a value or a non-OK Status); callers read as a column of
// `if (!s.ok()) return s;`. The message says what was being done when it failed.
//
// Status and Result are value types; they are not synchronized, like any other value.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace gatehouse {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,     // the caller's input is wrong; retrying will not help
  kNotFound,            // the named thing does not exist
  kAlreadyExists,       // it exists and may not be created again
  kFailedPrecondition,  // the system is not in a state where this is allowed
  kFenceLost,           // a fenced write was rejected: another claim superseded ours
  kUnavailable,         // try again later (busy database, network down)
  kInternal,            // a bug or a corrupted store
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return {}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // "FenceLost: completing acme/app#1" style, for logs and CLI errors.
  std::string ToString() const;

  // Returns a copy whose message is prefixed with `context: `.
  Status WithContext(std::string_view context) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string msg) {
  return {StatusCode::kInvalidArgument, std::move(msg)};
}
inline Status NotFound(std::string msg) { return {StatusCode::kNotFound, std::move(msg)}; }
inline Status AlreadyExists(std::string msg) {
  return {StatusCode::kAlreadyExists, std::move(msg)};
}
inline Status FailedPrecondition(std::string msg) {
  return {StatusCode::kFailedPrecondition, std::move(msg)};
}
inline Status FenceLost(std::string msg) { return {StatusCode::kFenceLost, std::move(msg)}; }
inline Status Unavailable(std::string msg) { return {StatusCode::kUnavailable, std::move(msg)}; }
inline Status Internal(std::string msg) { return {StatusCode::kInternal, std::move(msg)}; }

// Either a T or an error E. Result<T> (E = Status) is what most code returns; a layer with a
// richer error type (github/errors.h: GitHubError) reuses the same shape.
template <typename T, typename E>
class [[nodiscard]] ValueOrError {
 public:
  ValueOrError(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  ValueOrError(E error) : error_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return value_.has_value(); }
  const E& error() const { return error_; }

  T& value() & {
    assert(ok());
    return *value_;
  }
  const T& value() const& {
    assert(ok());
    return *value_;
  }
  T&& value() && {
    assert(ok());
    return std::move(*value_);
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 protected:
  E error_;
  std::optional<T> value_;
};

// Either a T or a non-OK Status. Constructing a Result from an OK Status is a bug.
template <typename T>
class [[nodiscard]] Result : public ValueOrError<T, Status> {
  using Base = ValueOrError<T, Status>;

 public:
  Result(T value) : Base(std::move(value)) {}        // NOLINT: implicit by design
  Result(Status status) : Base(std::move(status)) {  // NOLINT: implicit by design
    assert(!this->error_.ok() && "Result constructed from an OK Status");
    if (this->error_.ok()) this->error_ = Internal("Result constructed from an OK Status");
  }

  const Status& status() const { return this->error_; }
};

}  // namespace gatehouse

#define GH_RETURN_IF_ERROR(expr)             \
  do {                                       \
    ::gatehouse::Status gh_status_ = (expr); \
    if (!gh_status_.ok()) return gh_status_; \
  } while (0)

#define GH_CONCAT_INNER(a, b) a##b
#define GH_CONCAT(a, b) GH_CONCAT_INNER(a, b)
#define GH_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = std::move(tmp).value()
// GH_ASSIGN_OR_RETURN(auto x, MakeX()); returns the error Status when MakeX() fails.
#define GH_ASSIGN_OR_RETURN(lhs, expr) \
  GH_ASSIGN_OR_RETURN_IMPL(GH_CONCAT(gh_result_, __LINE__), lhs, expr)
