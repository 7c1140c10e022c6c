-- wrk script: POSTs one real, signed pull_request webhook over and over, each with a new
-- X-GitHub-Delivery id (so every request is a new delivery, stored durably).
--   GATEHOUSE_BENCH_BODY        path of the (minified) payload file
--   GATEHOUSE_BENCH_SIGNATURE   "sha256=<hex HMAC of that file>", computed by run.sh
-- The body never changes, so its signature is computed once; the delivery id is a header,
-- outside the signed bytes, exactly as with GitHub.
local threads = {}
local counter = 0

function setup(thread)
  thread:set("tid", #threads)
  table.insert(threads, thread)
end

function init(args)
  local f = assert(io.open(os.getenv("GATEHOUSE_BENCH_BODY"), "rb"))
  body = f:read("*a")
  f:close()
  signature = os.getenv("GATEHOUSE_BENCH_SIGNATURE")
  prefix = string.format("bench-%d-%d-", os.time(), tid)
  statuses = {}
end

function request()
  counter = counter + 1
  return wrk.format("POST", "/webhook", {
    ["Content-Type"] = "application/json",
    ["X-GitHub-Event"] = "pull_request",
    ["X-GitHub-Delivery"] = prefix .. counter,
    ["X-Hub-Signature-256"] = signature,
  }, body)
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  io.write(string.format("requests %d in %.1f s: %.0f/s; latency p50 %.2f ms, p90 %.2f ms, " ..
                         "p99 %.2f ms, max %.2f ms; socket errors %d, non-2xx %d\n",
                         summary.requests, summary.duration / 1e6,
                         summary.requests / (summary.duration / 1e6),
                         latency:percentile(50) / 1000, latency:percentile(90) / 1000,
                         latency:percentile(99) / 1000, latency.max / 1000,
                         summary.errors.connect + summary.errors.read + summary.errors.write +
                         summary.errors.timeout, summary.errors.status))
end
