-- Atomically takes up to ARGV[2] due members (score <= ARGV[1]) from the priority queues.
-- KEYS[1..n-1]: the queues, highest priority first; KEYS[n]: hash with the fairness counters.
-- ARGV[1]: now (ms); ARGV[2]: max items; ARGV[3]: '1' strict priority, '0' weighted;
-- ARGV[4..]: one weight per queue.
-- Weighted mode is smooth weighted round-robin over the queues that have due work; its counters
-- persist between calls, so even claims of one job at a time share fairly and nothing starves.
-- Returns { next, id1, q1, id2, q2, ... }: next is the earliest score left in any queue ('-1' if
-- all are empty), qi the queue index (1-based) the member came from, in pick order.
local nq = #KEYS - 1
local now = tonumber(ARGV[1])
local want = tonumber(ARGV[2])
local strict = ARGV[3] == '1'

local due = {}
for i = 1, nq do
  due[i] = redis.call('ZCOUNT', KEYS[i], '-inf', now)
end

local order = {}
local take = {}
for i = 1, nq do take[i] = 0 end

if strict then
  local left = want
  for i = 1, nq do
    local n = math.min(due[i], left)
    for _ = 1, n do order[#order + 1] = i end
    take[i] = n
    left = left - n
  end
else
  local counters = redis.call('HMGET', KEYS[nq + 1], unpack(KEYS, 1, nq))
  local current = {}
  for i = 1, nq do current[i] = tonumber(counters[i]) or 0 end
  for _ = 1, want do
    local total, best = 0, nil
    for i = 1, nq do
      if due[i] - take[i] > 0 then
        local w = tonumber(ARGV[3 + i])
        current[i] = current[i] + w
        total = total + w
        if best == nil or current[i] > current[best] then best = i end
      end
    end
    if best == nil then break end
    current[best] = current[best] - total
    take[best] = take[best] + 1
    order[#order + 1] = best
  end
  local flat = {}
  for i = 1, nq do
    flat[#flat + 1] = KEYS[i]
    flat[#flat + 1] = current[i]
  end
  redis.call('HSET', KEYS[nq + 1], unpack(flat))
end

local members = {}
for i = 1, nq do
  if take[i] > 0 then
    members[i] = redis.call('ZRANGEBYSCORE', KEYS[i], '-inf', now, 'LIMIT', 0, take[i])
    redis.call('ZREM', KEYS[i], unpack(members[i]))
  end
end

local out = { '-1' }
local cursor = {}
for _, i in ipairs(order) do
  cursor[i] = (cursor[i] or 0) + 1
  local id = members[i][cursor[i]]
  if id then
    out[#out + 1] = id
    out[#out + 1] = tostring(i)
  end
end

local next = nil
for i = 1, nq do
  local first = redis.call('ZRANGE', KEYS[i], 0, 0, 'WITHSCORES')
  if first[2] then
    local s = tonumber(first[2])
    if next == nil or s < next then next = s end
  end
end
if next ~= nil then out[1] = string.format('%.0f', next) end
return out
