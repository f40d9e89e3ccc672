-- renew.lua for every lease key of a batch in one call (a standalone node: keys of any slot).
-- KEYS: the leases; ARGV[1]: holder; ARGV[2]: ttl ms. Returns one 1 (still held) or 0 per key.
-- One MGET for the batch, then a PEXPIRE per key still held.
local holders = redis.call('MGET', unpack(KEYS))
local out = {}
for i = 1, #KEYS do
  if holders[i] == ARGV[1] then
    out[i] = redis.call('PEXPIRE', KEYS[i], ARGV[2])
  else
    out[i] = 0
  end
end
return out
