// door_stages: where an accepted webhook's microseconds go at the front door, stage by stage,
// on one thread with nothing else running (issue 15, point 4; docs/BENCHMARKS.md, "The front
// door's budget"). bench/door/budget.py runs it next to the door under wrk, whose per-thread
// CPU it splits. Every figure is the thread's CPU time (CLOCK_THREAD_CPUTIME_ID), as the
// per-thread figures of the door under load are, except the commit's wall time.
//
//   door_stages --body FILE [--body FILE ...] [--dir DIR] [--group N] [--rounds N]
//
// For each body (a webhook payload as GitHub sends it), the median over --rounds rounds of:
//   - the stages the webhook handler runs on an HTTP thread, each alone: the signature
//     (VerifySignature256), the body's hash for the duplicate check (Sha256Hex), the streaming
//     parse and validation (ParseWebhookPayload), the compression InboxWriter::Accept does
//     (ZlibCompress);
//   - the whole handler (WebhookHandler::Handle: the stages above but the compression, the
//     kept headers, the Delivery, the response) with a sink that answers at once, less the
//     copy of the request this loop makes and the server does not;
//   - the group commit the inbox writer makes: Inbox::AcceptDeliveries of --group compressed
//     deliveries into a fresh SQLite file in DIR with serve's durable settings (an fsync'd
//     commit), per delivery: the writer thread's CPU, and the wall time (CPU plus the wait
//     for the disk). The file is removed afterwards.
// Nothing is asserted; the figures are for BENCHMARKS.md.
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/compress.h"
#include "base/log.h"
#include "bench/bench_format.h"
#include "engine/inbox.h"
#include "github/signature.h"
#include "http/webhook_handler.h"
#include "http/webhook_payload.h"
#include "store/open_store.h"

namespace gatehouse::bench {
namespace {

constexpr char kSecret[] = "door-stages-secret";

struct Args {
  std::vector<std::string> bodies;
  std::string dir = "build/bench-door";
  int group = 10;
  int rounds = 5;
};

int Usage(int code) {
  std::fprintf(code == 0 ? stdout : stderr,
               "Usage: door_stages --body FILE [--body FILE ...] [--dir DIR] [--group N] "
               "[--rounds N]\n\n"
               "Times each stage of accepting one webhook on one thread: the signature, the\n"
               "body's hash, the parse, the compression, the whole handler, and the inbox's\n"
               "group commit of N deliveries (default 10) into a fresh SQLite file in DIR\n"
               "(default build/bench-door), fsync'd as `gatehouse serve` does. Prints the\n"
               "median of --rounds rounds (default 5) in microseconds per delivery.\n");
  return code;
}

// Thread CPU time, for the writer's share of a commit (the rest of its wall time is the disk).
double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Microseconds of this thread's CPU per call of `op`, the median of `rounds` rounds of at
// least 0.2 s of CPU each.
double MicrosPerCall(int rounds, const std::function<void()>& op) {
  for (int i = 0; i < 50; ++i) op();  // warm the caches and the allocator
  std::vector<double> per_round;
  for (int r = 0; r < rounds; ++r) {
    int64_t calls = 0;
    const double start = ThreadCpuSeconds();
    double elapsed = 0;
    do {
      for (int i = 0; i < 64; ++i) op();
      calls += 64;
      elapsed = ThreadCpuSeconds() - start;
    } while (elapsed < 0.2);
    per_round.push_back(elapsed * 1e6 / static_cast<double>(calls));
  }
  return Median(per_round);
}

// Answers every delivery at once, as if it were durable: the handler's own work alone.
class InstantSink final : public DeliverySink {
 public:
  void Accept(Delivery delivery, std::function<void(Result<AcceptOutcome>)> done) override {
    bytes_ += delivery.body.size();
    done(AcceptOutcome::kAccepted);
  }
  void CountRejected(std::string_view /*reason*/) override {}
  Status CheckWritable() override { return Status::Ok(); }
  size_t bytes() const { return bytes_; }

 private:
  size_t bytes_ = 0;
};

HttpRequest MakeRequest(const std::string& body, const std::string& signature, int64_t n) {
  HttpRequest request;
  request.method = "POST";
  request.target = "/webhook";
  request.peer = "127.0.0.1:50000";
  request.headers = {{"Host", "127.0.0.1"},
                     {"User-Agent", "GitHub-Hookshot/door-stages"},
                     {"Content-Type", "application/json"},
                     {"X-GitHub-Event", "pull_request"},
                     {"X-GitHub-Delivery", "door-stages-" + std::to_string(n)},
                     {"X-GitHub-Hook-ID", "1"},
                     {"X-Hub-Signature-256", signature},
                     {"Content-Length", std::to_string(body.size())}};
  request.body = body;
  return request;
}

struct CommitCost {
  double cpu_us = 0;   // the writer thread's CPU per delivery
  double wall_us = 0;  // per delivery, including the wait for the disk
  double commits_per_second = 0;
};

// Group commits of `group` deliveries (compressed, as the writer receives them) into a fresh
// SQLite file; the medians of `rounds` rounds of at least 0.5 s each.
Result<CommitCost> TimeGroupCommit(const std::string& body, const std::string& signature,
                                   const std::string& dir, int group, int rounds) {
  const std::string path = dir + "/door-stages.db";
  std::filesystem::remove(path);
  std::filesystem::remove(path + "-wal");
  std::filesystem::remove(path + "-shm");
  auto opened = OpenStore(path);
  if (!opened.ok()) return opened.status();
  StorePtr store = std::move(*opened);
  RealClock clock;
  const std::string packed = ZlibCompress(body);
  const std::string body_sha = Sha256Hex(body);
  int64_t next_id = 0;
  auto one_commit = [&]() -> Status {
    std::vector<Delivery> batch(static_cast<size_t>(group));
    for (Delivery& d : batch) {
      d.delivery_id = "door-stages-" + std::to_string(next_id++);
      d.event = "pull_request";
      d.action = "synchronize";
      d.installation_id = 1;
      d.body = packed;
      d.encoding = Delivery::Encoding::kZlib;
      d.body_sha256 = body_sha;
      d.received_at = clock.Now();
      d.headers = {{"X-GitHub-Event", "pull_request"},
                   {"X-GitHub-Delivery", d.delivery_id},
                   {"X-Hub-Signature-256", signature}};
    }
    auto outcomes = store->inbox().AcceptDeliveries(batch, Counters{}, clock.Now());
    return outcomes.ok() ? Status::Ok() : outcomes.status();
  };
  for (int i = 0; i < 20; ++i) {
    if (Status s = one_commit(); !s.ok()) return s;
  }
  std::vector<double> cpu, wall, rate;
  for (int r = 0; r < rounds; ++r) {
    int64_t commits = 0;
    const double cpu_start = ThreadCpuSeconds();
    const auto start = Steady::now();
    double elapsed = 0;
    do {
      if (Status s = one_commit(); !s.ok()) return s;
      ++commits;
      elapsed = SecondsSince(start);
    } while (elapsed < 0.5);
    const double deliveries = static_cast<double>(commits) * group;
    cpu.push_back((ThreadCpuSeconds() - cpu_start) * 1e6 / deliveries);
    wall.push_back(elapsed * 1e6 / deliveries);
    rate.push_back(static_cast<double>(commits) / elapsed);
  }
  store.reset();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  return CommitCost{Median(cpu), Median(wall), Median(rate)};
}

void Row(const char* what, double us) {
  std::printf("  %-44s %8s us\n", what, Fixed(us, 1).c_str());
}

int RunBody(const std::string& file, const Args& args) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "door_stages: cannot read %s\n", file.c_str());
    return 1;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string body = buffer.str();
  const std::string signature = "sha256=" + HmacSha256Hex(kSecret, body);
  const std::vector<std::string> secrets = {kSecret};
  if (!VerifySignature256(signature, body, secrets) || !ParseWebhookPayload(body)) {
    std::fprintf(stderr, "door_stages: %s is not a valid JSON webhook body\n", file.c_str());
    return 1;
  }
  std::printf("%s: %zu bytes (%zu compressed)\n", file.c_str(), body.size(),
              ZlibCompress(body).size());

  volatile size_t sink_bytes = 0;  // keeps each stage's result alive
  const double verify = MicrosPerCall(args.rounds, [&] {
    sink_bytes = sink_bytes + (VerifySignature256(signature, body, secrets) ? 1 : 0);
  });
  const double hash =
      MicrosPerCall(args.rounds, [&] { sink_bytes = sink_bytes + Sha256Hex(body).size(); });
  const double parse = MicrosPerCall(
      args.rounds, [&] { sink_bytes = sink_bytes + ParseWebhookPayload(body)->action.size(); });
  const double compress =
      MicrosPerCall(args.rounds, [&] { sink_bytes = sink_bytes + ZlibCompress(body).size(); });

  RealClock clock;
  InstantSink sink;
  WebhookOptions options;
  options.secrets = secrets;
  WebhookHandler handler(options, sink, clock);
  int64_t n = 0;
  int answered_202 = 0;
  const double copy = MicrosPerCall(args.rounds, [&] {
    HttpRequest request = MakeRequest(body, signature, n++);
    sink_bytes = sink_bytes + request.body.size();
  });
  const double handled = MicrosPerCall(args.rounds, [&] {
    handler.Handle(MakeRequest(body, signature, n++),
                   [&](HttpResponse response) { answered_202 += response.status == 202 ? 1 : 0; });
  });
  if (answered_202 == 0 || sink.bytes() == 0) {
    std::fprintf(stderr, "door_stages: the handler accepted nothing\n");
    return 1;
  }
  const double handler_own = handled - copy;

  auto commit = TimeGroupCommit(body, signature, args.dir, args.group, args.rounds);
  if (!commit.ok()) {
    std::fprintf(stderr, "door_stages: group commit: %s\n", commit.status().ToString().c_str());
    return 1;
  }
  std::printf(" on an HTTP thread, per delivery:\n");
  Row("signature (HMAC-SHA256 of the body)", verify);
  Row("body hash (SHA-256, the duplicate check)", hash);
  Row("streaming parse and validation", parse);
  Row("the rest of the handler (headers, response)", handler_own - verify - hash - parse);
  Row("= the whole handler", handler_own);
  Row("+ compression (InboxWriter::Accept)", compress);
  Row("= HTTP thread's work beyond the server", handler_own + compress);
  std::printf(" on the inbox writer, group commits of %d (%s commits/s):\n", args.group,
              Grouped(commit->commits_per_second).c_str());
  Row("writer CPU per delivery", commit->cpu_us);
  Row("wall per delivery (CPU and the disk's wait)", commit->wall_us);
  std::printf("\n");
  return 0;
}

int Main(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") return Usage(0);
    if (i + 1 >= argc) return Usage(2);
    const std::string value = argv[++i];
    if (arg == "--body") {
      args.bodies.push_back(value);
    } else if (arg == "--dir") {
      args.dir = value;
    } else if (arg == "--group") {
      args.group = std::atoi(value.c_str());
      if (args.group < 1 || args.group > 10000) return Usage(2);
    } else if (arg == "--rounds") {
      args.rounds = std::atoi(value.c_str());
      if (args.rounds < 1 || args.rounds > 100) return Usage(2);
    } else {
      return Usage(2);
    }
  }
  if (args.bodies.empty()) return Usage(2);
  SetLogLevel(LogLevel::kWarn);  // the fresh file's migrations are not the figures
  std::filesystem::create_directories(args.dir);
  std::printf("door_stages: median of %d rounds, one thread\n", args.rounds);
  for (const std::string& body : args.bodies) {
    if (int rc = RunBody(body, args); rc != 0) return rc;
  }
  return 0;
}

}  // namespace
}  // namespace gatehouse::bench

int main(int argc, char** argv) { return gatehouse::bench::Main(argc, argv); }
