#include "app/clock_skew.h"

#include <chrono>
#include <string>

namespace gatehouse::app {

Status CheckClockSkew(Store& store, Time local_now, Duration lease) {
  GH_ASSIGN_OR_RETURN(std::optional<Time> db_now, store.DatabaseTime());
  if (!db_now) return Status::Ok();
  const Duration skew = local_now > *db_now ? local_now - *db_now : *db_now - local_now;
  if (skew <= lease / 4) return Status::Ok();
  const auto ms = [](Duration d) {
    return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(d).count());
  };
  return FailedPrecondition("this host's clock is " + ms(skew) + " ms " +
                            (local_now > *db_now ? "ahead of" : "behind") +
                            " the database server's, more than a quarter of the lease (" +
                            ms(lease) + " ms): fix NTP on one of them (docs/POSTGRES.md)");
}

}  // namespace gatehouse::app
