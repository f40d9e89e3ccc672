-- Parks jobs a limit refused in a hold set (out of the priority queues, so they block nothing),
-- then, for a concurrency limit, checks the key's mirror count: if a slot was released between the
-- claim's refusal and now (its release found this set empty), as many heads as there are free
-- slots go back to their queues at once, so no wake-up is lost.
-- KEYS[1]: hold set; KEYS[2]: mirror counts (hash field -> slots held); KEYS[3]: where each held
-- job is (hash id -> hold set); KEYS[4..7]: the namespace's queues, highest priority first.
-- ARGV[1]: wake channel; ARGV[2]: field; ARGV[3]: concurrency ('-1': no check, a paused type);
-- then pairs (member, score); a score is priority rank * 1e13 + due time (ms).
local hold, held, where = KEYS[1], KEYS[2], KEYS[3]
for a = 4, #ARGV, 2 do
  redis.call('ZADD', hold, ARGV[a + 1], ARGV[a])
  redis.call('HSET', where, ARGV[a], hold)
end
local limit = tonumber(ARGV[3])
if limit < 0 then
  return 0
end
local free = limit - tonumber(redis.call('HGET', held, ARGV[2]) or '0')
if free <= 0 then
  return 0
end
local heads = redis.call('ZPOPMIN', hold, free)
local soonest = nil
for i = 1, #heads, 2 do
  local score = tonumber(heads[i + 1])
  local rank = math.floor(score / 1e13)
  local due = score - rank * 1e13
  redis.call('ZADD', KEYS[4 + rank], 'LT', due, heads[i])
  redis.call('HDEL', where, heads[i])
  if soonest == nil or due < soonest then soonest = due end
end
if soonest ~= nil then
  redis.call('PUBLISH', ARGV[1], string.format('%.0f', soonest))
end
return #heads / 2
