-- POST /v1/alerts with the seeds' login alert (post_alert.lua), spread over several servers: wrk's threads connect to
-- the ports of BENCH_SPREAD_PORTS (comma-separated) in turn, so `-t3` over three cluster instances is round-robin by
-- thread, each thread's connections on one instance. Without BENCH_SPREAD_PORTS it is post_alert.lua.
dofile("bench/lua/post_alert.lua")

local ports, turn = {}, 0
for port in string.gmatch(os.getenv("BENCH_SPREAD_PORTS") or "", "%d+") do ports[#ports + 1] = port end

function setup(thread)
    if #ports == 0 then return end
    turn = turn % #ports + 1
    thread.addr = wrk.lookup(wrk.host, ports[turn])[1]
end
