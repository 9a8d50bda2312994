-- The backend's table (PostgreSQLSchema) with 20,000 rows of 300 bytes.
CREATE TABLE kv (key bytea PRIMARY KEY, value bytea NOT NULL);
INSERT INTO kv SELECT decode(lpad(to_hex(g), 16, '0'), 'hex'), decode(repeat('ab', 300), 'hex')
FROM generate_series(1, 20000) g;
