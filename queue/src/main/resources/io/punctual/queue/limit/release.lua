-- Mirrors slots PostgreSQL has just given back (the statement that ended their attempts committed):
-- for each (job, attempt) the mirror recorded as holding a slot, with that same attempt, the key's
-- count goes down by one. An attempt the mirror does not know, or knows with another number,
-- changes nothing. The caller then wakes the head of each returned key's hold sets (they live in
-- the slots of the queue shards, not necessarily this one).
-- KEYS[1]: mirror counts; KEYS[2]: slot holders (hash id -> 'attempt NUL field').
-- ARGV: pairs (job id, attempt). Returns the field of each slot released (a field may repeat).
local fields = {}
for a = 1, #ARGV, 2 do
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
      fields[#fields + 1] = field
    end
  end
end
return fields
