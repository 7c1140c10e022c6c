#include "base/compress.h"

#include <gtest/gtest.h>

namespace gatehouse {
namespace {

TEST(CompressTest, RoundTripsAndShrinksJson) {
  std::string json = "{\"pull_request\":{";
  for (int i = 0; i < 400; ++i)
    json += "\"url_" + std::to_string(i) + "\":\"https://api.github.com/x\",";
  json += "\"n\":1}}";
  const std::string packed = ZlibCompress(json);
  EXPECT_LT(packed.size() * 4, json.size());
  auto raw = ZlibDecompress(packed);
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ(*raw, json);
  auto empty = ZlibDecompress(ZlibCompress(""));
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(*empty, "");
}

TEST(CompressTest, CorruptOrOversizedInputIsAnError) {
  EXPECT_EQ(ZlibDecompress("not zlib at all").status().code(), StatusCode::kInvalidArgument);
  const std::string big(1 << 20, 'a');
  EXPECT_EQ(ZlibDecompress(ZlibCompress(big), 1024).status().code(), StatusCode::kInvalidArgument);
  std::string truncated = ZlibCompress(big);
  truncated.resize(truncated.size() / 2);
  EXPECT_FALSE(ZlibDecompress(truncated).ok());
}

}  // namespace
}  // namespace gatehouse
