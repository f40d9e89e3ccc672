-- Moves the promoter's cursor only if it is still what the pass read or last wrote: a pass that
-- began before Redis lost its data must not write its cursor back after the loss, which would hide
-- the loss from the next pass (it rebuilds the queue only when the cursor is gone).
-- KEYS[1]: the cursor; ARGV[1]: the value expected ('' for none); ARGV[2]: the new value.
-- Returns 1 when moved, 0 when the cursor had changed.
local current = redis.call('GET', KEYS[1])
if (current or '') ~= ARGV[1] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[2])
return 1
