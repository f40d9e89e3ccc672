-- Mirrors slots a claim has just taken in PostgreSQL: the key's count goes up by one per attempt
-- and the attempt is recorded as the holder (so that its release finds its key).
-- KEYS[1]: mirror counts; KEYS[2]: slot holders. ARGV: triples (job id, attempt, field).
for a = 1, #ARGV, 3 do
  redis.call('HSET', KEYS[2], ARGV[a], ARGV[a + 1] .. '\0' .. ARGV[a + 2])
  redis.call('HINCRBY', KEYS[1], ARGV[a + 2], 1)
end
return #ARGV / 3
