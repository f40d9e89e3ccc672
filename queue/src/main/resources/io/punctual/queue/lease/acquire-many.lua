-- SET NX PX for every lease key of a batch in one call (a standalone node: keys of any slot).
-- KEYS: the leases; ARGV[1]: holder; ARGV[2]: ttl ms. Returns one 1 (taken) or 0 per key, in order.
local out = {}
for i = 1, #KEYS do
  if redis.call('SET', KEYS[i], ARGV[1], 'NX', 'PX', ARGV[2]) then
    out[i] = 1
  else
    out[i] = 0
  end
end
return out
