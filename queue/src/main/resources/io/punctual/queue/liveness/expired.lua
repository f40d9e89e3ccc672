-- Workers whose deadline passed (Redis clock), oldest first. KEYS[1]: live workers; ARGV[1]: most
-- to return. Returns member, deadline, member, deadline... and, last, the Redis time now (ms).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local out = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. now, 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[1]))
table.insert(out, tostring(now))
return out
