-- Deletes a batch of leases, each only if this holder owns it. KEYS: leases; ARGV[1]: holder.
-- Returns, per key, 1 if deleted, 0 otherwise.
local out = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    out[i] = redis.call('DEL', key)
  else
    out[i] = 0
  end
end
return out
