-- wrk script: GET /user/{id} for ids drawn at random from the seeded ids file, IDS_FILE
-- (default .data/user-ids.csv), read once per thread. Run wrk with --latency for percentiles.
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

function request()
  return wrk.format("GET", "/user/" .. ids[math.random(#ids)])
end
