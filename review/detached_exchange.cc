#include "review/detached_exchange.h"

#include <thread>
#include <utility>

namespace gatehouse::review {

std::shared_ptr<DetachedExchange> StartDetachedExchange(std::shared_ptr<HttpTransport> transport,
                                                        HttpCall call) {
  auto exchange = std::make_shared<DetachedExchange>();
  std::thread([exchange, transport = std::move(transport), call = std::move(call)] {
    Result<HttpReply> reply = transport->Send(call);
    MutexLock lock(&exchange->mu);
    exchange->reply.emplace(std::move(reply));
    exchange->cv.SignalAll();
  }).detach();
  return exchange;
}

bool IsCurlTimeout(std::string_view curl_message) {
  if (curl_message.find("Resolving timed out") != std::string_view::npos) return false;
  return curl_message.find("timed out") != std::string_view::npos ||
         curl_message.find("Timeout was reached") != std::string_view::npos;
}

}  // namespace gatehouse::review
