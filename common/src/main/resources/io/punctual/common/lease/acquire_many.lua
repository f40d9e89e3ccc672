-- Takes the leases of a batch of jobs in one call. KEYS: leases; ARGV[1]: holder; ARGV[2]: ttl ms.
-- Returns, per key, 1 if this call took it, 0 if it was held already (by anyone).
local out = {}
for i, key in ipairs(KEYS) do
  if redis.call('SET', key, ARGV[1], 'NX', 'PX', ARGV[2]) then
    out[i] = 1
  else
    out[i] = 0
  end
end
return out
