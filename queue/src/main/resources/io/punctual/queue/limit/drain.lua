-- Moves up to ARGV[2] heads of a hold set back to their priority queues (a resumed type, or a key
-- the reconciler found with free slots) and wakes the workers.
-- KEYS[1]: hold set of one queue shard; KEYS[2]: where each held job of that shard is;
-- KEYS[3..6]: that shard's queues (all on the shard's slot).
-- ARGV[1]: wake channel; ARGV[2]: how many at most. Returns how many it moved.
local heads = redis.call('ZPOPMIN', KEYS[1], tonumber(ARGV[2]))
local soonest = nil
for i = 1, #heads, 2 do
  local score = tonumber(heads[i + 1])
  local rank = math.floor(score / 1e13)
  local due = score - rank * 1e13
  redis.call('ZADD', KEYS[3 + rank], 'LT', due, heads[i])
  redis.call('HDEL', KEYS[2], heads[i])
  if soonest == nil or due < soonest then soonest = due end
end
if soonest ~= nil then
  redis.call('PUBLISH', ARGV[1], string.format('%.0f', soonest))
end
return #heads / 2
