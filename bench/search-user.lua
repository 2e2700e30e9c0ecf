-- wrk script: GET /user/search for (first_name, last_name) prefix pairs drawn at random
-- from PREFIXES_FILE (default gatling/data/search-prefixes.csv, header first_name,last_name),
-- which bench/saturation.py generates from the seeded data. The default page size (100)
-- is used, as most clients would. Read once per thread.
local pairs_ = {}

-- Prefixes are UTF-8 (mostly Cyrillic): percent-encode every byte outside the RFC 3986
-- unreserved set, so wrk sends exactly the bytes the service decodes.
local function encode(s)
  return (s:gsub("[^%w%-%._~]", function(c)
    return string.format("%%%02X", string.byte(c))
  end))
end

-- Names cannot contain commas or double quotes, so a CSV line is two fields; PostgreSQL
-- may still quote a field, so strip quotes if present.
local function unquote(s)
  return (s:gsub('^"(.*)"$', "%1"))
end

function init(args)
  local path = os.getenv("PREFIXES_FILE") or "gatling/data/search-prefixes.csv"
  for line in io.lines(path) do
    local first, last = line:match("^([^,]*),([^,]*)$")
    if first and line ~= "first_name,last_name" then
      first, last = unquote(first), unquote(last)
      if #first > 0 and #last > 0 then
        pairs_[#pairs_ + 1] = "/user/search?first_name=" .. encode(first) .. "&last_name=" .. encode(last)
      end
    end
  end
  if #pairs_ == 0 then
    error("no prefix pairs in " .. path .. ": run bench/saturation.py search to generate it")
  end
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16) % 100000)
end

function request()
  return wrk.format("GET", pairs_[math.random(#pairs_)])
end
