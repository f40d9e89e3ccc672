-- A worker reports itself alive until the Redis clock's now + ttl (one clock for every process,
-- so workers' and reapers' clocks may disagree). KEYS[1]: live workers; ARGV[1]: member
-- (ttlMs:workerId); ARGV[2]: ttl ms. Returns the new deadline (ms).
local t = redis.call('TIME')
local deadline = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], deadline, ARGV[1])
return deadline
