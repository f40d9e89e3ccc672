-- Adds members to the priority queues and wakes sleeping workers when the batch holds a job due
-- sooner than anything already queued. ARGV[2] says what a member already queued keeps:
-- 'LT' the earlier of the two scores (an enqueue); after Redis lost its data (the promoter's
-- rebuild, whose caller already moved every due score to its hold-back time) 'NX' its own score
-- (it was queued after the loss), 'GT' the later one (it may be an entry from before the loss, of
-- a job a worker runs now).
-- KEYS[1..n]: the queues, highest priority first.
-- ARGV[1]: wake channel; ARGV[2]: 'LT', 'NX' or 'GT'; then triples (queue index, score ms, member).
local earliest = nil
for i = 1, #KEYS do
  local first = redis.call('ZRANGE', KEYS[i], 0, 0, 'WITHSCORES')
  if first[2] then
    local s = tonumber(first[2])
    if earliest == nil or s < earliest then earliest = s end
  end
end
local mode = ARGV[2]
local soonest = nil
for a = 3, #ARGV, 3 do
  local key = KEYS[tonumber(ARGV[a])]
  local score = tonumber(ARGV[a + 1])
  redis.call('ZADD', key, mode, score, ARGV[a + 2])
  if soonest == nil or score < soonest then soonest = score end
end
if soonest ~= nil and (earliest == nil or soonest < earliest) then
  redis.call('PUBLISH', ARGV[1], string.format('%.0f', soonest))
end
return soonest and string.format('%.0f', soonest) or '-1'
