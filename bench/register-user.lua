-- wrk script: POST /user/register, a new user on every request. Names are letters only
-- (the API's name rule); the last name carries a per-thread counter written in letters,
-- so that no two requests repeat. Every registration pays one Argon2id hash.
local thread_tag = ""
local n = 0
local firsts = { "Anna", "Ivan", "Maria", "Oleg", "Elena", "Pavel", "Olga", "Sergey" }

local function letters(k)
  local s = ""
  repeat
    s = string.char(97 + k % 26) .. s
    k = math.floor(k / 26)
  until k == 0
  return s
end

function setup(thread)
  -- Each wrk thread gets its own tag, so counters of different threads never collide.
  thread:set("tag", letters(math.random(0, 26 ^ 5)))
end

function init(args)
  thread_tag = tag or "x"
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16) % 100000)
end

function request()
  n = n + 1
  local body = string.format(
    '{"first_name":"%s","second_name":"Bench%s%s","birthdate":"1990-05-17","password":"bench-password"}',
    firsts[math.random(#firsts)], thread_tag, letters(n))
  return wrk.format("POST", "/user/register", { ["Content-Type"] = "application/json" }, body)
end

function done(summary, latency, requests)
  io.write(string.format("p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms, non-2xx/3xx %d, socket errors %d\n",
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000, summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
