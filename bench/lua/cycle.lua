-- Create-then-answer cycles (wrk -s cycle.lua URL): each connection sends either
-- POST /v1/alerts (the login alert) or, when an alert created earlier by this thread
-- is waiting, POST /v1/alerts/{id}/response for it. A 201 carries a new id (queued);
-- a 200 is a finished cycle. done() prints "CYCLES <cycles> <seconds> <errors>".
-- wrk's response() does not say which connection answered, hence the status tells
-- creates (201) from answers (200); the baseline server answers the same way.
local login = '{"title":"Login","message":"Enter your credentials","buttons":["Cancel","Log in"],'
    .. '"fields":[{"placeholder":"Username"},{"placeholder":"Password","secure":true,"keyboard":"asciiCapable"}]}'
local answer = '{"buttonIndex":1,"values":["alice","secret"]}'
local headers = { ["Content-Type"] = "application/json" }
local threads = {}

function setup(thread)
    table.insert(threads, thread)
end

function init(args)
    cycles = 0
    errors = 0
    ids = {}
    first, last = 1, 0
end

function request()
    if first <= last then
        local id = ids[first]
        ids[first] = nil
        first = first + 1
        return wrk.format("POST", "/v1/alerts/" .. id .. "/response", headers, answer)
    end
    return wrk.format("POST", "/v1/alerts", headers, login)
end

function response(status, headers, body)
    if status == 201 then
        local id = body:match('"id":"([^"]+)"')
        if id then
            last = last + 1
            ids[last] = id
        else
            errors = errors + 1
        end
    elseif status == 200 then
        cycles = cycles + 1
    else
        errors = errors + 1
    end
end

function done(summary, latency, requests)
    local total, failed = 0, 0
    for _, thread in ipairs(threads) do
        total = total + thread:get("cycles")
        failed = failed + thread:get("errors")
    end
    io.write(string.format("CYCLES %d %.3f %d\n", total, summary.duration / 1e6, failed))
end
