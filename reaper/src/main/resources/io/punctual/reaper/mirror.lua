-- Replaces a namespace's slot mirror with what PostgreSQL holds: the counts per key and the
-- holders. KEYS[1]: mirror counts; KEYS[2]: slot holders. ARGV: triples (job id, attempt, field).
-- Returns how many fields of the counts changed.
local before = redis.call('HGETALL', KEYS[1])
local old = {}
for i = 1, #before, 2 do old[before[i]] = tonumber(before[i + 1]) end
local counts = {}
redis.call('DEL', KEYS[2])
for a = 1, #ARGV, 3 do
  redis.call('HSET', KEYS[2], ARGV[a], ARGV[a + 1] .. '\0' .. ARGV[a + 2])
  counts[ARGV[a + 2]] = (counts[ARGV[a + 2]] or 0) + 1
end
local changed = 0
for field, n in pairs(old) do
  if counts[field] ~= n then changed = changed + 1 end
end
for field, n in pairs(counts) do
  if old[field] == nil then changed = changed + 1 end
end
redis.call('DEL', KEYS[1])
for field, n in pairs(counts) do redis.call('HSET', KEYS[1], field, n) end
return changed
