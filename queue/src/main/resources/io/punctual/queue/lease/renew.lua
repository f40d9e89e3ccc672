-- Extends a lease only while this holder still owns it. KEYS[1]: lease; ARGV[1]: holder; ARGV[2]: ttl ms.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
