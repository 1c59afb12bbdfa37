/**
 * Lua scripts: each runs atomically in Redis, which is how a put is a compare-and-swap and a
 * claim is set-if-free-or-mine. Key names built inside a script always share the thread's
 * hash tag (see keys.ts).
 */

const EXPIRE_THREAD = `
local function expire_thread(base, ttl)
  if ttl <= 0 then return end
  for _, ns in ipairs(redis.call('SMEMBERS', base .. ':nss')) do redis.call('PEXPIRE', base .. ':idx:' .. ns, ttl) end
  for _, suffix in ipairs({':cp', ':nss', ':heads', ':blobs', ':w', ':wi', ':meta'}) do redis.call('PEXPIRE', base .. suffix, ttl) end
end
`;

/**
 * A run's writes are fenced by its claim: `fence` names the owner whose claim this saver holds
 * on the thread ('' for none); once the claim names someone else (it lapsed and was taken), the
 * write stores nothing. A claim that lapsed and was not taken lets it through, as a renewal would.
 */
const FENCED = `
local function fenced(base, owner)
  if owner == '' then return false end
  local holder = redis.call('GET', base .. ':claim')
  return holder and holder ~= owner
end
`;

/**
 * ARGV: base, ns, id, checkHead ("1"/"0"), expectedHead, parentAndCreatedAt, record, metadata,
 * ttlMs, fence (FENCED), blobCount, then per blob: field, value, baseField ("" for a full copy).
 * Returns {"OK"}, {"CONFLICT", actualHead}, {"NEED_FULL"} (a delta's base is gone) or {"FENCED"}.
 */
export const PUT = `${EXPIRE_THREAD}${FENCED}
local base, ns, id = ARGV[1], ARGV[2], ARGV[3]
if fenced(base, ARGV[10]) then return {'FENCED'} end
local head = redis.call('HGET', base .. ':heads', ns)
if ARGV[4] == '1' and (head or '') ~= ARGV[5] then return {'CONFLICT', head or ''} end
local count = tonumber(ARGV[11])
for i = 0, count - 1 do
  local baseField = ARGV[14 + i * 3]
  if baseField ~= '' and redis.call('HEXISTS', base .. ':blobs', baseField) == 0 then return {'NEED_FULL'} end
end
for i = 0, count - 1 do redis.call('HSET', base .. ':blobs', ARGV[12 + i * 3], ARGV[13 + i * 3]) end
local prefix = ns .. '\\0' .. id .. '\\0'
redis.call('HSET', base .. ':cp', prefix .. 'r', ARGV[7], prefix .. 'm', ARGV[8], prefix .. 'p', ARGV[6])
redis.call('ZADD', base .. ':idx:' .. ns, 0, id)
redis.call('SADD', base .. ':nss', ns)
if not head or id > head then redis.call('HSET', base .. ':heads', ns, id) end
redis.call('HSETNX', base .. ':meta', 'seq', 0)
expire_thread(base, tonumber(ARGV[9]))
return {'OK'}
`;

/**
 * ARGV: base, writePrefix (ns\0checkpointId\0taskId\0), ttlMs, count, taskId, fence (FENCED), then
 * per write: idx, replace ("1"/"0"), channel, data. Stores "seq\0taskId\0channel\0data". Returns
 * "OK" or "FENCED".
 */
export const PUT_WRITES = `${EXPIRE_THREAD}${FENCED}
local base, prefix = ARGV[1], ARGV[2]
if fenced(base, ARGV[6]) then return 'FENCED' end
for i = 0, tonumber(ARGV[4]) - 1 do
  local field = prefix .. ARGV[7 + i * 4]
  local existing = redis.call('HGET', base .. ':w', field)
  if not existing or ARGV[8 + i * 4] == '1' then
    local seq
    if existing then seq = string.sub(existing, 1, string.find(existing, '\\0', 1, true) - 1)
    else seq = redis.call('HINCRBY', base .. ':meta', 'seq', 1) end
    redis.call('HSET', base .. ':w', field, seq .. '\\0' .. ARGV[5] .. '\\0' .. ARGV[9 + i * 4] .. '\\0' .. ARGV[10 + i * 4])
    redis.call('ZADD', base .. ':wi', 0, field)
  end
end
expire_thread(base, tonumber(ARGV[3]))
return 'OK'
`;

/**
 * ARGV: base, ns, id ("" for the newest). Returns {id, record, metadata, parentAndCreatedAt,
 * write values...}, or {} when there is no such checkpoint.
 */
export const LOAD = `
local base, ns, id = ARGV[1], ARGV[2], ARGV[3]
if id == '' then id = redis.call('HGET', base .. ':heads', ns) end
if not id then return {} end
local prefix = ns .. '\\0' .. id .. '\\0'
local row = redis.call('HMGET', base .. ':cp', prefix .. 'r', prefix .. 'm', prefix .. 'p')
if not row[1] then return {} end
local out = {id, row[1], row[2], row[3]}
local fields = redis.call('ZRANGE', base .. ':wi', '[' .. prefix, '[' .. prefix .. '\\255', 'BYLEX')
if #fields > 0 then
  for _, value in ipairs(redis.call('HMGET', base .. ':w', unpack(fields))) do
    if value then table.insert(out, value) end
  end
end
return out
`;

/** ARGV: blobs key, then pairs (field prefix, version). Returns field, value pairs for each blob and its delta bases. */
export const BLOB_CHAINS = `
local out = {}
for i = 2, #ARGV, 2 do
  local prefix, version = ARGV[i], ARGV[i + 1]
  while version do
    local value = redis.call('HGET', ARGV[1], prefix .. version)
    if not value then break end
    table.insert(out, prefix .. version)
    table.insert(out, value)
    version = nil
    if string.sub(value, 1, 1) == 'D' then version = string.sub(value, 2, string.find(value, '\\n', 1, true) - 1) end
  end
end
return out
`;

/**
 * KEYS: claim key. ARGV: owner, ttlMs[, replaces]. 1 when the claim is (now) held by owner; a
 * claim held by `replaces` (an owner known dead) is taken over.
 */
export const CLAIM = `
local held = redis.call('GET', KEYS[1])
if held and held ~= ARGV[1] and held ~= ARGV[3] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`;

/** KEYS: claim key. The holder and the milliseconds its claim has left, or nil when nobody holds it. */
export const CLAIM_HOLDER = `
local held = redis.call('GET', KEYS[1])
if not held then return nil end
return {held, redis.call('PTTL', KEYS[1])}
`;

/** KEYS: claim key. ARGV: owner. */
export const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`;

/** ARGV: base. Deletes every key of the thread but its claim. */
export const DELETE_THREAD = `
local base = ARGV[1]
for _, ns in ipairs(redis.call('SMEMBERS', base .. ':nss')) do redis.call('DEL', base .. ':idx:' .. ns) end
for _, suffix in ipairs({':cp', ':nss', ':heads', ':blobs', ':w', ':wi', ':meta'}) do redis.call('DEL', base .. suffix) end
return 1
`;
