-- wrk script: POST the same valid body with a unique Idempotency-Key per request.
local counter = 0
local prefix = tostring(os.time()) .. "-" .. tostring(math.random(1, 1e9))

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["X-Correlation-Id"] = "bench"

function init(args)
  wrk.headers["X-Api-Key"] = args[1]
  local f = assert(io.open(args[2], "r"))
  wrk.body = f:read("*a")
  f:close()
end

-- wrk.format replaces (does not merge) wrk.headers, so each request gets a full copy.
function request()
  counter = counter + 1
  local headers = {}
  for k, v in pairs(wrk.headers) do headers[k] = v end
  headers["Idempotency-Key"] = prefix .. "-" .. counter
  return wrk.format(nil, nil, headers)
end

local status_counts = {}
function response(status, headers, body)
  status_counts[status] = (status_counts[status] or 0) + 1
end

function done(summary, latency, requests)
  io.write(string.format(
    'WRK_JSON {"requests":%d,"durationUs":%d,"errors":%d,"non2xx":%d,"p50Us":%d,"p99Us":%d,"maxUs":%d}\n',
    summary.requests, summary.duration,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.errors.status, latency:percentile(50), latency:percentile(99), latency.max))
end
