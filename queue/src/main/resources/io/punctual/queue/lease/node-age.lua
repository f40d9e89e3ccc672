-- How long this lease node has kept its data, in ms by its own clock: the age of a marker written
-- (with the node's time, no TTL) by the first caller that found none. A node that restarted empty,
-- or was flushed, answers 0 and then counts up from there. KEYS[1]: the marker.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local since = redis.call('GET', KEYS[1])
if not since then
  redis.call('SET', KEYS[1], now)
  return 0
end
return now - tonumber(since)
