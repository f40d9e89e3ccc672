-- Atomically takes up to ARGV[2] due members (score <= ARGV[1]) from the priority queues.
-- KEYS[1..n-1]: the queues, highest priority first; KEYS[n]: hash with the fairness counters.
-- ARGV[1]: now (ms); ARGV[2]: max items; ARGV[3]: '1' strict priority, '0' weighted;
-- ARGV[4..]: one weight per queue.
-- Weighted mode is smooth weighted round-robin over the queues that have due work; its counters
-- persist between calls, so even claims of one job at a time share fairly and nothing starves.
-- Returns { next, id1, q1, id2, q2, ... }: next is the earliest score left in any queue ('-1' if
-- all are empty), qi the queue index (1-based) the member came from, in pick order.
--
-- Per job this script's own work is what a claim costs Redis beyond the commands it runs, so the
-- loops over picks stay small: weights are read once, a claim with due work in one queue only
-- (the usual case: one priority in use) takes it at once (the round-robin would pick that queue
-- every time and leave its counters as they were), and the reply is built with counters, not the
-- table length operator.
local nq = #KEYS - 1
local now = tonumber(ARGV[1])
local want = tonumber(ARGV[2])
local strict = ARGV[3] == '1'

local due = {}
local busy, only = 0, nil
for i = 1, nq do
  due[i] = redis.call('ZCOUNT', KEYS[i], '-inf', now)
  if due[i] > 0 then
    busy = busy + 1
    only = i
  end
end

local order = nil -- pick order (queue indexes); nil: the members of queue `only`, in order
local take = {}
for i = 1, nq do take[i] = 0 end

if busy == 1 then
  take[only] = math.min(due[only], want)
elseif busy > 1 and strict then
  order = {}
  local left, n = want, 0
  for i = 1, nq do
    local k = math.min(due[i], left)
    for _ = 1, k do
      n = n + 1
      order[n] = i
    end
    take[i] = k
    left = left - k
  end
elseif busy > 1 then
  order = {}
  local weight = {}
  for i = 1, nq do weight[i] = tonumber(ARGV[3 + i]) end
  local counters = redis.call('HMGET', KEYS[nq + 1], unpack(KEYS, 1, nq))
  local current = {}
  for i = 1, nq do current[i] = tonumber(counters[i]) or 0 end
  for n = 1, want do
    local total, best = 0, nil
    for i = 1, nq do
      if due[i] - take[i] > 0 then
        local w = weight[i]
        current[i] = current[i] + w
        total = total + w
        if best == nil or current[i] > current[best] then best = i end
      end
    end
    if best == nil then break end
    current[best] = current[best] - total
    take[best] = take[best] + 1
    order[n] = best
  end
  local flat = {}
  for i = 1, nq do
    flat[2 * i - 1] = KEYS[i]
    flat[2 * i] = current[i]
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
local n = 1
if order == nil then
  if only ~= nil and take[only] > 0 then
    local q = tostring(only)
    for _, id in ipairs(members[only]) do
      out[n + 1] = id
      out[n + 2] = q
      n = n + 2
    end
  end
else
  local cursor = {}
  local names = {}
  for i = 1, nq do
    cursor[i] = 0
    names[i] = tostring(i)
  end
  for _, i in ipairs(order) do
    cursor[i] = cursor[i] + 1
    local id = members[i][cursor[i]]
    if id then
      out[n + 1] = id
      out[n + 2] = names[i]
      n = n + 2
    end
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
