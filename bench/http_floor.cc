// http_floor: gatehouse's own HTTP server answering every request 202 with no work — no
// signature check, no parse, no store — so that bench/frontdoor/run.sh can show how much of
// `gatehouse serve`'s webhook throughput the durable work costs (issue 15, point 4).
//
//   http_floor [--listen HOST:PORT] [--http-threads N]
//
// Prints "http_floor: listening on http://HOST:PORT/webhook" once bound (port 0 picks one)
// and serves until SIGINT or SIGTERM. The server options are `gatehouse serve`'s defaults.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "http/server.h"

namespace {

// The body `gatehouse serve` answers an accepted delivery with, so the bytes on the wire match.
constexpr char kAcceptedBody[] =
    R"({"status":"accepted","delivery":"00000000-0000-0000-0000-000000000000"})";

class FloorHandler final : public gatehouse::HttpHandler {
 public:
  void Handle(gatehouse::HttpRequest /*request*/, gatehouse::Responder respond) override {
    respond(gatehouse::JsonResponse(202, kAcceptedBody));
  }
};

int Usage(int code) {
  std::fprintf(code == 0 ? stdout : stderr,
               "Usage: http_floor [--listen HOST:PORT] [--http-threads N]\n\n"
               "gatehouse's HTTP server answering every request 202 with no work (the floor\n"
               "docs/BENCHMARKS.md compares `gatehouse serve` with). Default --listen\n"
               "127.0.0.1:0, --http-threads 2 (as `gatehouse serve`). Stops on SIGINT/SIGTERM.\n");
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  gatehouse::HttpServerOptions options;
  options.listen = "127.0.0.1:0";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") return Usage(0);
    if (i + 1 >= argc) return Usage(2);
    if (arg == "--listen") {
      options.listen = argv[++i];
    } else if (arg == "--http-threads") {
      options.threads = std::atoi(argv[++i]);
      if (options.threads < 1 || options.threads > 64) return Usage(2);
    } else {
      return Usage(2);
    }
  }
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);

  FloorHandler handler;
  auto server = gatehouse::HttpServer::Start(options, handler);
  if (!server.ok()) {
    std::fprintf(stderr, "http_floor: %s\n", server.status().ToString().c_str());
    return 1;
  }
  auto address = gatehouse::ParseListenAddress(options.listen);
  std::printf("http_floor: listening on http://%s:%u/webhook\n",
              address.ok() ? address->host.c_str() : "127.0.0.1",
              static_cast<unsigned>((*server)->port()));
  std::fflush(stdout);
  int signal = 0;
  sigwait(&stop, &signal);
  (*server)->Stop(std::chrono::seconds(2));
  return 0;
}
