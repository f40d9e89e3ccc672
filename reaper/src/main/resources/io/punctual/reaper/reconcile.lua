-- Adds the members that are missing from their priority queue (a member already queued keeps its
-- score) and wakes sleeping workers when it added any.
-- A job waiting in a hold set of the limits (KEYS[n + 1] names where each is) is not missing.
-- KEYS[1..n]: the queues of one namespace, highest priority first; KEYS[n + 1]: the held jobs.
-- ARGV[1]: wake channel; then triples (queue index, score ms, member).
-- Returns how many members it added.
local added = 0
local soonest = nil
for a = 2, #ARGV, 3 do
  local key = KEYS[tonumber(ARGV[a])]
  if not redis.call('ZSCORE', key, ARGV[a + 2])
      and redis.call('HEXISTS', KEYS[#KEYS], ARGV[a + 2]) == 0 then
    local score = tonumber(ARGV[a + 1])
    redis.call('ZADD', key, score, ARGV[a + 2])
    added = added + 1
    if soonest == nil or score < soonest then soonest = score end
  end
end
if soonest ~= nil then
  redis.call('PUBLISH', ARGV[1], string.format('%.0f', soonest))
end
return added
