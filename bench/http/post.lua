-- post.lua — the wrk script of `make bench-http` (bench/http/run.sh): POST
-- one JSON body over keep-alive connections, then print one JSON line with
-- the request rate and latency percentiles.
--
--   wrk -s bench/http/post.lua URL -- BODY-FILE
--
-- wrk is closed-loop: each connection sends its next request only when the
-- answer to the previous one is in, so a slow answer also holds back the
-- requests that would have been sent meanwhile (coordinated omission).
-- The percentiles are those of the requests sent; an open stream of
-- clients at the same rate would see a longer tail.

function init(args)
   local f = assert(io.open(args[1], "rb"))
   wrk.body = f:read("*a")
   f:close()
   wrk.method = "POST"
   wrk.headers["Content-Type"] = "application/json"
end

function done(summary, latency, requests)
   local e = summary.errors
   local seconds = summary.duration / 1e6
   io.write(string.format(
      '{"requests":%d,"duration_s":%.3f,"rps":%.1f,"p50_ms":%.3f,"p90_ms":%.3f,' ..
      '"p99_ms":%.3f,"max_ms":%.3f,"socket_errors":%d,"non_2xx":%d}\n',
      summary.requests, seconds, summary.requests / seconds,
      latency:percentile(50) / 1e3, latency:percentile(90) / 1e3,
      latency:percentile(99) / 1e3, latency.max / 1e3,
      e.connect + e.read + e.write + e.timeout, e.status))
end
