-- renew.lua for every lease key of a batch in one call (a standalone node: keys of any slot).
-- KEYS: the leases; ARGV[1]: holder; ARGV[2]: ttl ms. Returns one 1 (still held) or 0 per key.
local out = {}
for i = 1, #KEYS do
  if redis.call('GET', KEYS[i]) == ARGV[1] then
    out[i] = redis.call('PEXPIRE', KEYS[i], ARGV[2])
  else
    out[i] = 0
  end
end
return out
