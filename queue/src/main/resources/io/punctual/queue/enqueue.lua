-- Adds members to the priority queues and wakes sleeping workers when the batch holds a job due
-- sooner than anything already queued. ARGV[2] says what a member already queued keeps:
-- 'LT' the earlier of the two scores (an enqueue); after Redis lost its data (the promoter's
-- rebuild, whose caller already moved every due score to its hold-back time) 'NX' its own score
-- (it was queued after the loss), 'GT' the later one (it may be an entry from before the loss, of
-- a job a worker runs now).
-- KEYS[1..n]: the queues, highest priority first.
-- ARGV[1]: wake channel; ARGV[2]: 'LT', 'NX' or 'GT'; then triples (queue index, score ms, member).
-- One ZADD per queue and up to PAIRS members, not one per member: each redis.call costs about as
-- much as adding a member.
local PAIRS = 1000
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
local byQueue = {}
for a = 3, #ARGV, 3 do
  local q = tonumber(ARGV[a])
  local score = tonumber(ARGV[a + 1])
  local args = byQueue[q]
  if args == nil then
    args = {}
    byQueue[q] = args
  end
  args[#args + 1] = ARGV[a + 1]
  args[#args + 1] = ARGV[a + 2]
  if #args == 2 * PAIRS then
    redis.call('ZADD', KEYS[q], mode, unpack(args))
    byQueue[q] = {}
  end
  if soonest == nil or score < soonest then soonest = score end
end
for q, args in pairs(byQueue) do
  if #args > 0 then redis.call('ZADD', KEYS[q], mode, unpack(args)) end
end
if soonest ~= nil and (earliest == nil or soonest < earliest) then
  redis.call('PUBLISH', ARGV[1], string.format('%.0f', soonest))
end
return soonest and string.format('%.0f', soonest) or '-1'
