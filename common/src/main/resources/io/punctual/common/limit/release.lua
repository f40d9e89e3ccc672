-- Mirrors slots PostgreSQL has just given back (the statement that ended their attempts committed):
-- for each (job, attempt) the mirror recorded as holding a slot, with that same attempt, the key's
-- count goes down by one and the head of its hold set goes back to its priority queue, waking the
-- workers. An attempt the mirror does not know, or knows with another number, changes nothing.
-- KEYS[1]: mirror counts; KEYS[2]: slot holders (hash id -> 'attempt NUL field'); KEYS[3]: where
-- each held job is; KEYS[4..7]: the namespace's queues.
-- ARGV[1]: wake channel; ARGV[2]: hold-set key prefix (the field follows it); then pairs
-- (job id, attempt). Returns how many jobs it moved back.
local moved = 0
local soonest = nil
for a = 3, #ARGV, 2 do
  local v = redis.call('HGET', KEYS[2], ARGV[a])
  if v then
    local sep = string.find(v, '\0', 1, true)
    local attempt = string.sub(v, 1, sep - 1)
    local field = string.sub(v, sep + 1)
    if attempt == ARGV[a + 1] then
      redis.call('HDEL', KEYS[2], ARGV[a])
      if redis.call('HINCRBY', KEYS[1], field, -1) <= 0 then
        redis.call('HDEL', KEYS[1], field)
      end
      local hold = ARGV[2] .. field
      local head = redis.call('ZPOPMIN', hold, 1)
      if head[1] then
        local score = tonumber(head[2])
        local rank = math.floor(score / 1e13)
        local due = score - rank * 1e13
        redis.call('ZADD', KEYS[4 + rank], 'LT', due, head[1])
        redis.call('HDEL', KEYS[3], head[1])
        moved = moved + 1
        if soonest == nil or due < soonest then soonest = due end
      end
    end
  end
end
if soonest ~= nil then
  redis.call('PUBLISH', ARGV[1], string.format('%.0f', soonest))
end
return moved
