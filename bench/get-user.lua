-- wrk script: GET /user/{id} for ids drawn at random from the seeded ids file.
-- IDS_FILE (default .data/user-ids.csv) is read once per thread. With PAUSE_MS set, each
-- connection waits that long after every response: a steady, light load whose latency can
-- be compared with and without something else running (bench/registration.sh).
local ids = {}

function init(args)
  local path = os.getenv("IDS_FILE") or ".data/user-ids.csv"
  for line in io.lines(path) do
    if line ~= "id" then
      ids[#ids + 1] = line
    end
  end
  if #ids == 0 then
    error("no ids in " .. path .. ": seed first")
  end
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16) % 100000)
end

local pause = tonumber(os.getenv("PAUSE_MS") or "")
if pause then
  function delay()
    return pause
  end
end

function request()
  return wrk.format("GET", "/user/" .. ids[math.random(#ids)])
end

function done(summary, latency, requests)
  io.write(string.format("p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms, non-2xx/3xx %d, socket errors %d\n",
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000, summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
