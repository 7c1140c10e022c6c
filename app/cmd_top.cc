// gatehouse top: a live terminal view of a running gatehouse — the funnel, rates, the busiest
// pull requests and the dead count — refreshed every --interval-seconds from the admin API's
// documents (app/admin_client.h: --server URL, or the database), until `q`.
//
// On a terminal, stdin is put in non-canonical mode without echo (restored on exit, also on
// SIGINT/SIGTERM) and each frame redraws the screen; otherwise (a pipe, a log) frames are
// printed one after the other, and `q` on stdin still quits. --frames N stops after N frames.
#include <poll.h>
#include <signal.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app/admin_client.h"
#include "app/commands.h"
#include "app/common.h"
#include "app/json_fields.h"
#include "base/log.h"

namespace gatehouse::app {
namespace {

namespace json = boost::json;
using Steady = std::chrono::steady_clock;

constexpr const char kTopUsage[] =
    R"(Usage: gatehouse top [--interval-seconds S] [--frames N] [--db URL | --server URL]

A live view of gatehouse, refreshed every S seconds (default 2): the webhook funnel, the rates
since the last frame (deliveries, signals and passes per second, and signals per pass: how
much the debounce coalesces), work items by state with the oldest pending age and the dead
count, and the busiest pull requests (most signals since the view started; at first, most
signals ever). Press q to quit (Ctrl-C works too).

Options:
  --interval-seconds S  seconds between frames (default 2; 0.2 to 3600)
  --frames N            stop after N frames (default: until q)
  -h, --help            this text
)";

constexpr size_t kMaxItems = 5000;  // work items read per frame (pages of 500)
constexpr size_t kBusiest = 10;

volatile sig_atomic_t g_stop = 0;
extern "C" void StopTop(int) { g_stop = 1; }

// Non-canonical, no-echo stdin while the view runs; restored by the destructor.
class RawTerminal {
 public:
  RawTerminal() {
    if (::isatty(0) == 0 || ::tcgetattr(0, &saved_) != 0) return;
    termios raw = saved_;
    raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);
    raw.c_cc[VMIN] = 0;
    raw.c_cc[VTIME] = 0;
    active_ = ::tcsetattr(0, TCSANOW, &raw) == 0;
  }
  ~RawTerminal() {
    if (active_) ::tcsetattr(0, TCSANOW, &saved_);
  }
  RawTerminal(const RawTerminal&) = delete;
  RawTerminal& operator=(const RawTerminal&) = delete;

 private:
  termios saved_{};
  bool active_ = false;
};

// One frame's reading of the server.
struct Sample {
  Steady::time_point at;
  json::value status;
  json::array items;
};

Result<Sample> Read(AdminClient& client) {
  Sample s;
  s.at = Steady::now();
  GH_ASSIGN_OR_RETURN(s.status, client.Call("GET", "/api/v1/status"));
  std::string after;
  while (s.items.size() < kMaxItems) {
    std::string target = "/api/v1/work?limit=500";
    if (!after.empty()) target += "&after=" + Encode(after);
    GH_ASSIGN_OR_RETURN(json::value page, client.Call("GET", target));
    for (const json::value& w : ArrayOf(page, "items")) s.items.push_back(w);
    after = TextOf(page, "next");
    if (after.empty()) break;
  }
  return s;
}

int64_t Counter(const Sample& s, const char* name) {
  const json::value* c = FieldOf(s.status, "counters");
  return c != nullptr ? IntOf(*c, name) : 0;
}

// Rates per second between two samples.
double Rate(int64_t now, int64_t before, double seconds) {
  return seconds > 0 ? static_cast<double>(now - before) / seconds : 0.0;
}

void PrintFrame(const std::string& source, const Sample& now, const Sample* before,
                const std::map<std::string, int64_t>& first_gen, bool tty) {
  if (tty) {
    std::printf("\x1b[H\x1b[2J");
  } else if (before != nullptr) {
    std::printf("\n");
  }
  const json::value& s = now.status;
  std::printf("gatehouse top — %s — %s   (q quits)\n\n", source.c_str(), TextOf(s, "now").c_str());
  std::printf(
      "webhooks  received %lld  routed %lld  ignored %lld  duplicate %lld  rejected %lld  "
      "dead %lld  in flight %lld  recovered %lld  %s\n",
      static_cast<long long>(IntOf(s, "received")), static_cast<long long>(IntOf(s, "routed")),
      static_cast<long long>(IntOf(s, "ignored")), static_cast<long long>(IntOf(s, "duplicate")),
      static_cast<long long>(IntOf(s, "rejected")), static_cast<long long>(IntOf(s, "dead")),
      static_cast<long long>(IntOf(s, "in_flight")), static_cast<long long>(IntOf(s, "recovered")),
      BoolOf(s, "balanced") ? "balanced" : "NOT BALANCED");
  if (before != nullptr) {
    const double secs = std::chrono::duration<double>(now.at - before->at).count();
    const int64_t signals = Counter(now, "work.signals") - Counter(*before, "work.signals");
    const int64_t passes =
        Counter(now, "work.passes_completed") - Counter(*before, "work.passes_completed");
    std::printf("rates     %.1f deliveries/s  %.1f signals/s  %.1f passes/s  ",
                Rate(IntOf(s, "received"), IntOf(before->status, "received"), secs),
                Rate(signals, 0, secs), Rate(passes, 0, secs));
    if (passes > 0) {
      std::printf("%.2f signals per pass\n",
                  static_cast<double>(signals) / static_cast<double>(passes));
    } else {
      std::printf("- signals per pass\n");
    }
  } else {
    std::printf("rates     (from the next frame)\n");
  }
  const json::value* work = FieldOf(s, "work");
  const json::value w = work != nullptr ? *work : json::value();
  const json::value* age = FieldOf(w, "oldest_pending_age_seconds");
  std::printf(
      "work      idle %lld  pending %lld  running %lld  DEAD %lld   oldest pending %s\n",
      static_cast<long long>(IntOf(w, "idle")), static_cast<long long>(IntOf(w, "pending")),
      static_cast<long long>(IntOf(w, "running")), static_cast<long long>(IntOf(w, "dead")),
      age == nullptr || age->is_null()
          ? "-"
          : (std::to_string(static_cast<int64_t>(age->to_number<double>())) + " s").c_str());
  const json::value* reviews = FieldOf(s, "reviews");
  if (reviews != nullptr) {
    std::printf("reviews   requested %lld  posted %lld  in flight %lld  dead %lld\n",
                static_cast<long long>(IntOf(*reviews, "requested")),
                static_cast<long long>(IntOf(*reviews, "done")),
                static_cast<long long>(IntOf(*reviews, "in_flight")),
                static_cast<long long>(IntOf(*reviews, "dead")));
  }
  // The busiest: most signals (requested generations) since the first frame.
  struct Busy {
    int64_t signals;
    const json::value* item;
  };
  std::vector<Busy> busy;
  for (const json::value& item : now.items) {
    const std::string key = TextOf(item, "key");
    auto it = first_gen.find(key);
    const int64_t ever = IntOf(item, "requested_gen");
    const int64_t signals =
        before == nullptr ? ever : ever - (it == first_gen.end() ? 0 : it->second);
    if (signals > 0) busy.push_back({signals, &item});
  }
  std::sort(busy.begin(), busy.end(), [](const Busy& a, const Busy& b) {
    return a.signals != b.signals ? a.signals > b.signals
                                  : TextOf(*a.item, "key") < TextOf(*b.item, "key");
  });
  std::printf("\n%-40s %8s  %-8s %4s  %s\n",
              before == nullptr ? "BUSIEST (signals ever)" : "BUSIEST (signals since start)",
              "SIGNALS", "STATE", "TRY", "LAST ERROR");
  for (size_t i = 0; i < busy.size() && i < kBusiest; ++i) {
    const json::value& item = *busy[i].item;
    std::printf("%-40s %8lld  %-8s %4lld  %s\n", TextOf(item, "key").c_str(),
                static_cast<long long>(busy[i].signals), TextOf(item, "state").c_str(),
                static_cast<long long>(IntOf(item, "attempts")),
                TextOf(item, "last_error").substr(0, 60).c_str());
  }
  if (busy.empty()) std::printf("(no signals since the view started)\n");
  std::fflush(stdout);
}

// Waits up to `timeout` for a key; true when it is q (or stdin says to stop).
bool WaitForQuit(Steady::duration timeout, bool* stdin_open) {
  const auto deadline = Steady::now() + timeout;
  while (g_stop == 0) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Steady::now()).count();
    if (left <= 0) return false;
    pollfd p{0, POLLIN, 0};
    const int n = ::poll(&p, *stdin_open ? 1 : 0, static_cast<int>(left));
    if (n <= 0) continue;  // timeout or EINTR: the loop checks both
    char c = 0;
    const ssize_t got = ::read(0, &c, 1);
    if (got == 0) *stdin_open = false;  // end of input: no more keys, go on until --frames
    if (got == 1 && (c == 'q' || c == 'Q')) return true;
  }
  return true;
}

}  // namespace

int RunTop(int argc, char** argv) {
  Flags flags({"db", "server", "token-file", "interval-seconds", "frames", "log-level"}, {});
  Status parsed = flags.Parse(argc, argv, 1);
  if (!parsed.ok() || !flags.positional().empty()) {
    PrintError("top",
               parsed.ok() ? "unexpected argument " + flags.positional()[0] : parsed.message());
    std::fprintf(stderr, "%s%s", kTopUsage, kAdminClientOptions);
    return kExitUsage;
  }
  if (flags.Has("help")) {
    std::printf("%s%s", kTopUsage, kAdminClientOptions);
    return kExitOk;
  }
  const std::string interval_text = flags.Get("interval-seconds", "2");
  char* end = nullptr;
  const double interval = std::strtod(interval_text.c_str(), &end);
  if (end == interval_text.c_str() || *end != '\0' || !(interval >= 0.2 && interval <= 3600)) {
    PrintError("top", "--interval-seconds must be a number from 0.2 to 3600, not " + interval_text);
    return kExitUsage;
  }
  auto frames = flags.GetInt("frames", 0, 1, 1'000'000);
  if (!frames.ok()) {
    PrintError("top", frames.status().message());
    return kExitUsage;
  }
  SetLogLevel(LogLevel::kWarn);
  if (flags.Has("log-level") && !ApplyLogLevel(flags)) return kExitUsage;
  auto client = OpenAdminClient(flags, /*must_exist=*/true);
  if (!client.ok()) {
    PrintError("top", client.status().ToString());
    return client.status().code() == StatusCode::kInvalidArgument ? kExitUsage : kExitFailure;
  }
  struct sigaction action = {};
  action.sa_handler = StopTop;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
  const bool tty = ::isatty(1) != 0;
  RawTerminal raw;
  bool stdin_open = true;
  std::map<std::string, int64_t> first_gen;
  std::optional<Sample> previous;
  for (int64_t frame = 0; !flags.Has("frames") || frame < *frames; ++frame) {
    auto sample = Read(**client);
    if (!sample.ok()) {
      PrintError("top", sample.status().ToString());
      return kExitFailure;
    }
    if (!previous) {
      for (const json::value& item : sample->items) {
        first_gen[TextOf(item, "key")] = IntOf(item, "requested_gen");
      }
    }
    PrintFrame((*client)->Describe(), *sample, previous ? &*previous : nullptr, first_gen, tty);
    previous = std::move(sample).value();
    if (flags.Has("frames") && frame + 1 >= *frames) break;
    if (WaitForQuit(
            std::chrono::duration_cast<Steady::duration>(std::chrono::duration<double>(interval)),
            &stdin_open)) {
      break;
    }
  }
  return kExitOk;
}

}  // namespace gatehouse::app
