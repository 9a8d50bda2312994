\set k random(100000, 900000000)
\startpipeline
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT key, value FROM kv WHERE key = ANY(ARRAY[decode(lpad(to_hex(:k::bigint), 16, '0'), 'hex'), '\x0000000000000001'::bytea, '\x0000000000000002'::bytea]);
SELECT key, value FROM kv WHERE key >= '\x00000000000000ff'::bytea AND key < '\x0000000000000100'::bytea ORDER BY key ASC LIMIT 10;
\endpipeline
\startpipeline
DELETE FROM kv WHERE key = ANY(ARRAY[decode(lpad(to_hex(:k::bigint + 1), 16, '0'), 'hex')]);
INSERT INTO kv (key, value) SELECT * FROM unnest(ARRAY[decode(lpad(to_hex(:k::bigint), 16, '0'), 'hex'), decode(lpad(to_hex(:k::bigint+1), 16, '0'), 'hex'), '\x0000000000000001'::bytea, '\x0000000000000002'::bytea], ARRAY[decode(repeat('ab', 400), 'hex'), decode(repeat('cd', 400), 'hex'), '\x01'::bytea, '\x02'::bytea]) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value;
COMMIT;
\endpipeline
