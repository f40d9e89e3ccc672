-- Adds members to the priority queues and wakes sleeping workers when the batch holds a job due
-- sooner than anything already queued. Re-adding a member keeps the earlier of the two scores (ZADD LT).
-- KEYS[1..n]: the queues, highest priority first.
-- ARGV[1]: wake channel; then triples (queue index, score ms, member).
local earliest = nil
for i = 1, #KEYS do
  local first = redis.call('ZRANGE', KEYS[i], 0, 0, 'WITHSCORES')
  if first[2] then
    local s = tonumber(first[2])
    if earliest == nil or s < earliest then earliest = s end
  end
end
local soonest = nil
for a = 2, #ARGV, 3 do
  local key = KEYS[tonumber(ARGV[a])]
  local score = tonumber(ARGV[a + 1])
  redis.call('ZADD', key, 'LT', score, ARGV[a + 2])
  if soonest == nil or score < soonest then soonest = score end
end
if soonest ~= nil and (earliest == nil or soonest < earliest) then
  redis.call('PUBLISH', ARGV[1], string.format('%.0f', soonest))
end
return soonest and string.format('%.0f', soonest) or '-1'
