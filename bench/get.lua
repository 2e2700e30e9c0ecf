-- wrk script: GETs drawn at random from the lines of IDS_FILE (default .data/user-ids.csv, the
-- seeded ids), read once per thread: GET /user/{id} for an id, or the line itself when it is a
-- path (starts with /). Run wrk with --latency for percentiles.
local paths = {}

function init(args)
  local file = os.getenv("IDS_FILE") or ".data/user-ids.csv"
  for line in io.lines(file) do
    if line:sub(1, 1) == "/" then
      paths[#paths + 1] = line
    elseif line ~= "id" and line ~= "" then
      paths[#paths + 1] = "/user/" .. line
    end
  end
  if #paths == 0 then error("nothing to request in " .. file .. ": seed first") end
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16) % 100000)
end

function request()
  return wrk.format("GET", paths[math.random(#paths)])
end
