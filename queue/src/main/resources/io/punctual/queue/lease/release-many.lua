-- release.lua for every lease key of a batch in one call (a standalone node: keys of any slot).
-- KEYS: the leases; ARGV[1]: holder. Returns one 1 (deleted) or 0 per key, in order.
-- One MGET and one DEL for the batch rather than a GET and a DEL per key (Redlock.KEYS_PER_SCRIPT
-- bounds the keys, well within unpack's limit).
local holders = redis.call('MGET', unpack(KEYS))
local out = {}
local mine = {}
for i = 1, #KEYS do
  if holders[i] == ARGV[1] then
    out[i] = 1
    mine[#mine + 1] = KEYS[i]
  else
    out[i] = 0
  end
end
if #mine > 0 then redis.call('DEL', unpack(mine)) end
return out
