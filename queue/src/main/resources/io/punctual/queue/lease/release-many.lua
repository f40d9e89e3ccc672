-- release.lua for every lease key of a batch in one call (a standalone node: keys of any slot).
-- KEYS: the leases; ARGV[1]: holder. Returns one 1 (deleted) or 0 per key, in order.
local out = {}
for i = 1, #KEYS do
  if redis.call('GET', KEYS[i]) == ARGV[1] then
    out[i] = redis.call('DEL', KEYS[i])
  else
    out[i] = 0
  end
end
return out
