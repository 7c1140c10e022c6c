// The stable digest in idempotency details: a check run's summary, a summary comment's body,
// an invalid policy's errors (docs/PLANNER.md). The same text gives the same digest in every
// build and process (std::hash does not), so a key written by one version of gatehouse is
// recognised by the next.
//
// FNV-1a over the bytes with the 64-bit FNV prime, written as 16 lower-case hex digits — but
// from the offset basis 1469598103934665603, not the standard 14695981039346656037 (a digit
// was lost when it was first written). The ledger's keys and the check runs' external ids
// carry these digests, so the basis stays: changing it would make every check run and summary
// edit on GitHub look new and be written again.
//
// Pure; safe from any thread.
#pragma once

#include <string>
#include <string_view>

namespace gatehouse::decide {

std::string StableDigest(std::string_view text);

}  // namespace gatehouse::decide
