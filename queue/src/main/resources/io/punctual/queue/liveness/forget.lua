-- Takes a dead worker out of the live set, unless it reported in meanwhile (its deadline moved).
-- KEYS[1]: live workers; ARGV[1]: member; ARGV[2]: the deadline seen dead. Returns 1 if removed.
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then
  return redis.call('ZREM', KEYS[1], ARGV[1])
end
return 0
