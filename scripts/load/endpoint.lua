-- wrk's script for scripts/load-test.sh: one endpoint, chosen by STRATUS_LOAD_ENDPOINT.
--   modify   POST records/modify, 5 new records per request (names unique per thread and request)
--   lookup   POST records/lookup of 10 records made before the run
--   changes  POST records/changes from the start of the zone, 100 per page
--   zones    GET zones/list
-- A request counts as an error when its status is not 200 or its answer names a
-- serverErrorCode (a per-record error). done() prints one line of figures for the script.
local endpoint = os.getenv("STRATUS_LOAD_ENDPOINT") or "zones"
local zone = '"zoneID":{"zoneName":"Load"}'
local threads = {}
local next_id = 1

function setup(thread)
    thread:set("id", next_id)
    next_id = next_id + 1
    table.insert(threads, thread)
end

function init(args)
    sent = 0
    bad = 0
    wrk.headers["Content-Type"] = "application/json"
end

local function modify_body()
    local operations = {}
    for i = 1, 5 do
        local name = string.format("t%d-%d-%d", id, sent, i)
        operations[i] = string.format(
            '{"operationType":"create","record":{"recordName":"%s","recordType":"Item",' ..
            '"fields":{"title":{"value":"%s"},"n":{"value":%d,"type":"INT64"}}}}', name, name, sent)
    end
    return '{' .. zone .. ',"operations":[' .. table.concat(operations, ",") .. ']}'
end

local function lookup_body()
    local records = {}
    for i = 0, 9 do records[i + 1] = string.format('{"recordName":"seed-%d"}', i) end
    return '{' .. zone .. ',"records":[' .. table.concat(records, ",") .. ']}'
end

function request()
    sent = sent + 1
    if endpoint == "modify" then
        return wrk.format("POST", nil, nil, modify_body())
    elseif endpoint == "lookup" then
        return wrk.format("POST", nil, nil, lookup_body())
    elseif endpoint == "changes" then
        return wrk.format("POST", nil, nil, '{' .. zone .. ',"resultsLimit":100}')
    end
    return wrk.format("GET", nil, nil, nil)
end

function response(status, headers, body)
    if status ~= 200 or string.find(body, "serverErrorCode", 1, true) then bad = bad + 1 end
end

function done(summary, latency, requests)
    local failed = 0
    for _, thread in ipairs(threads) do failed = failed + thread:get("bad") end
    local e = summary.errors
    local socket = e.connect + e.read + e.write + e.timeout
    io.write(string.format(
        "RESULT endpoint=%s requests=%d rate=%.1f p50_ms=%.2f p99_ms=%.2f errors=%d\n",
        endpoint, summary.requests, summary.requests / (summary.duration / 1e6),
        latency:percentile(50) / 1000, latency:percentile(99) / 1000, failed + socket))
end
