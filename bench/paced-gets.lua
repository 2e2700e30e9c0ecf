-- wrk script: TOTAL GETs of the ids in IDS_FILE (one per line), spread evenly over SECONDS by each of
-- wrk's connections (-c), each starting at a random point within its first gap so that they do not
-- arrive in waves; with the header `Consistency-Token: TOKEN` when TOKEN is set, and with
-- `Connection: close` when CLOSE is 1. Run with one thread
-- (-t1): once TOTAL answers are in it stops and writes `done` to stderr, upon which a
-- SIGINT ends wrk before its -d; and prints each status's count as `status <code> <n>`.
-- wrk opens a new connection wherever the service closes one (Tomcat does after a 400 or a 503).
local paths, token, close, total, gap = {}, nil, false, 0, 0
local started, answered = 0, 0
statuses = {} -- global: done() reads it from the thread

function setup(thread)
  main_thread = thread
end

function init(args)
  for line in io.lines(os.getenv("IDS_FILE")) do
    if line ~= "" then paths[#paths + 1] = "/user/get/" .. line end
  end
  if #paths == 0 then error("no ids in " .. os.getenv("IDS_FILE")) end
  token = os.getenv("TOKEN")
  if token == "" then token = nil end
  close = os.getenv("CLOSE") == "1"
  total = tonumber(os.getenv("TOTAL"))
  gap = tonumber(os.getenv("SECONDS")) * 1000 * tonumber(os.getenv("CONNECTIONS")) / total
  math.randomseed(os.time())
end

function delay()
  started = started + 1
  if started <= tonumber(os.getenv("CONNECTIONS")) then
    return math.random(0, math.floor(gap))
  end
  return gap
end

function request()
  local headers = {}
  if token then headers["Consistency-Token"] = token end
  if close then headers["Connection"] = "close" end
  return wrk.format("GET", paths[math.random(#paths)], headers)
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
  answered = answered + 1
  if answered >= total then
    -- wrk's main thread sleeps for all of -d: tell the caller, which interrupts it (SIGINT).
    wrk.thread:stop()
    io.stderr:write("done\n")
    io.stderr:flush()
  end
end

function done(summary, latency, requests)
  for status, count in pairs(main_thread:get("statuses")) do
    io.write(string.format("status %d %d\n", status, count))
  end
end
