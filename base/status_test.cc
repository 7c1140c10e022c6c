#include "base/status.h"

#include <gtest/gtest.h>

#include <memory>

namespace gatehouse {
namespace {

Result<int> Half(int x) {
  if (x % 2 != 0) return InvalidArgument("odd: " + std::to_string(x));
  return x / 2;
}

Result<int> Quarter(int x) {
  GH_ASSIGN_OR_RETURN(int h, Half(x));
  GH_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

Status CheckPositive(int x) {
  if (x <= 0) return FailedPrecondition("not positive");
  return Status::Ok();
}

Status Both(int a, int b) {
  GH_RETURN_IF_ERROR(CheckPositive(a));
  GH_RETURN_IF_ERROR(CheckPositive(b));
  return Status::Ok();
}

TEST(StatusTest, OkAndErrors) {
  EXPECT_TRUE(Status::Ok().ok());
  Status s = FenceLost("finishing acme/app#1");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kFenceLost);
  EXPECT_EQ(s.ToString(), "FenceLost: finishing acme/app#1");
  EXPECT_EQ(s.WithContext("pass").message(), "pass: finishing acme/app#1");
  EXPECT_TRUE(Status::Ok().WithContext("x").ok());
}

TEST(StatusTest, ResultCarriesValueOrError) {
  EXPECT_EQ(*Quarter(8), 2);
  auto r = Quarter(6);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "odd: 3");
}

TEST(StatusTest, ReturnIfErrorStopsAtFirstFailure) {
  EXPECT_TRUE(Both(1, 2).ok());
  EXPECT_EQ(Both(1, -1).code(), StatusCode::kFailedPrecondition);
}

TEST(StatusTest, ResultHoldsMoveOnlyTypes) {
  Result<std::unique_ptr<int>> r = std::make_unique<int>(7);
  ASSERT_TRUE(r.ok());
  std::unique_ptr<int> p = std::move(r).value();
  EXPECT_EQ(*p, 7);
}

}  // namespace
}  // namespace gatehouse
