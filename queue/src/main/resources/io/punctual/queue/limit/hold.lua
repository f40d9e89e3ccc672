-- Parks jobs a limit refused in a hold set of one queue shard (out of the priority queues, so they
-- block nothing) and records where each waits. The caller then checks the key's mirror count (it
-- lives in the namespace's slot, not necessarily this one): if a slot was released between the
-- claim's refusal and this park (its release found no one to wake), it drains as many heads as
-- there are free slots, so no wake-up is lost.
-- KEYS[1]: hold set; KEYS[2]: where each held job of the shard is (hash id -> hold set).
-- ARGV: pairs (member, score); a score is priority rank * 1e13 + due time (ms).
-- Returns how many it parked.
for a = 1, #ARGV, 2 do
  redis.call('ZADD', KEYS[1], ARGV[a + 1], ARGV[a])
  redis.call('HSET', KEYS[2], ARGV[a], KEYS[1])
end
return #ARGV / 2
