-- Removes queue members whose job is no longer PENDING, but only while each still has the score
-- it had when the reaper read it: a member re-added meanwhile (a retry) stays.
-- KEYS[1]: the queue. ARGV: pairs (member, score ms). Returns how many members it removed.
local removed = 0
for a = 1, #ARGV, 2 do
  local score = redis.call('ZSCORE', KEYS[1], ARGV[a])
  if score and string.format('%.0f', tonumber(score)) == ARGV[a + 1] then
    removed = removed + redis.call('ZREM', KEYS[1], ARGV[a])
  end
end
return removed
