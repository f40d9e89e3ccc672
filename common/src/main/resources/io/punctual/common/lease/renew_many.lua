-- Extends a batch of leases, each only while this holder still owns it. KEYS: leases;
-- ARGV[1]: holder; ARGV[2]: ttl ms. Returns, per key, 1 if extended, 0 otherwise.
local out = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    out[i] = redis.call('PEXPIRE', key, ARGV[2])
  else
    out[i] = 0
  end
end
return out
